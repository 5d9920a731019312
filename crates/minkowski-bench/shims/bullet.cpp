// Bullet 3 behind shim.h. Built against `bullet` (float) in the f32 build and
// `bullet-float64` (BT_USE_DOUBLE_PRECISION) in the f64 build, never both.
//
// Variants: 0 = btGjkPairDetector with btGjkEpaPenetrationDepthSolver (what Bullet's
// convex-convex algorithm runs), 1 = btGjkEpaSolver2 (Distance / Penetration).
// Collision margins are set to zero where Bullet allows it, so the shapes are the exact
// ones; spheres and capsules keep their radius as margin, which is their geometry.
#include "shim.h"

#include <btBulletCollisionCommon.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpa2.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkPairDetector.h>
#include <BulletCollision/NarrowPhaseCollision/btPointCollector.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>

#include <cmath>

#define FN(name) mk_bullet_##name

namespace {

btTransform pose_of(const mk_real* p) {
    return btTransform(btQuaternion(btScalar(p[3]), btScalar(p[4]), btScalar(p[5]), btScalar(p[6])),
                       btVector3(btScalar(p[0]), btScalar(p[1]), btScalar(p[2])));
}

void put(mk_real* out, btScalar d, const btVector3& n, const btVector3& pa, const btVector3& pb) {
    out[0] = d;
    for (int i = 0; i < 3; ++i) {
        out[1 + i] = n[i];
        out[4 + i] = pa[i];
        out[7 + i] = pb[i];
    }
}

}  // namespace

extern "C" {

void* FN(shape_new)(int kind, const mk_real* q, const mk_real* verts, int nverts, const int*, int) {
    btConvexShape* s = nullptr;
    switch (kind) {
        case MK_SPHERE:
            s = new btSphereShape(btScalar(q[0]));
            break;
        case MK_BOX:
            s = new btBoxShape(btVector3(btScalar(q[0]), btScalar(q[1]), btScalar(q[2])));
            s->setMargin(0);
            break;
        case MK_CAPSULE:
            s = new btCapsuleShape(btScalar(q[1]), btScalar(2 * q[0]));
            break;
        case MK_CYLINDER:
            s = new btCylinderShape(btVector3(btScalar(q[1]), btScalar(q[0]), btScalar(q[1])));
            s->setMargin(0);
            break;
        case MK_CONE:
            s = new btConeShape(btScalar(q[1]), btScalar(2 * q[0]));
            s->setMargin(0);
            break;
        case MK_HULL: {
            auto* h = new btConvexHullShape();
            for (int i = 0; i < nverts; ++i)
                h->addPoint(btVector3(btScalar(verts[3 * i]), btScalar(verts[3 * i + 1]),
                                      btScalar(verts[3 * i + 2])),
                            false);
            h->recalcLocalAabb();
            h->setMargin(0);
            s = h;
            break;
        }
        default:
            return nullptr;
    }
    return s;
}

void FN(shape_free)(void* s) { delete static_cast<btConvexShape*>(s); }

int FN(intersect)(int, const void* a, const mk_real* pa, const void* b, const mk_real* pb, int* hit) {
    // Bullet has no boolean query of its own: the GJK of btGjkEpaSolver2::Distance (no
    // EPA), which runs on the shapes without their margins (a sphere is its centre, a
    // capsule its segment), so the margins are compared here.
    const auto* sa = static_cast<const btConvexShape*>(a);
    const auto* sb = static_cast<const btConvexShape*>(b);
    btGjkEpaSolver2::sResults r;
    btGjkEpaSolver2::Distance(sa, pose_of(pa), sb, pose_of(pb), btVector3(1, 0, 0), r);
    if (r.status == btGjkEpaSolver2::sResults::Separated) {
        btScalar core = (r.witnesses[1] - r.witnesses[0]).length();
        *hit = core <= sa->getMargin() + sb->getMargin() ? 1 : 0;
        return MK_ANSWERED;
    }
    if (r.status == btGjkEpaSolver2::sResults::Penetrating) {
        *hit = 1;
        return MK_ANSWERED;
    }
    return MK_NO_ANSWER;
}

int FN(query)(int variant, int query, const void* a, const mk_real* pa, const void* b,
              const mk_real* pb, mk_real* out) {
    const auto* sa = static_cast<const btConvexShape*>(a);
    const auto* sb = static_cast<const btConvexShape*>(b);
    btTransform ta = pose_of(pa), tb = pose_of(pb);
    if (variant == 0) {
        btVoronoiSimplexSolver simplex;
        btGjkEpaPenetrationDepthSolver epa;
        btGjkPairDetector detector(sa, sb, &simplex, &epa);
        btGjkPairDetector::ClosestPointInput in;
        in.m_transformA = ta;
        in.m_transformB = tb;
        in.m_maximumDistanceSquared = BT_LARGE_FLOAT;
        btPointCollector res;
        detector.getClosestPoints(in, res, nullptr);
        if (!res.m_hasResult) return MK_NO_ANSWER;
        // m_normalOnBInWorld points from B towards A; m_pointInWorld is on B.
        btVector3 on_b = res.m_pointInWorld;
        btVector3 on_a = on_b + res.m_normalOnBInWorld * res.m_distance;
        put(out, res.m_distance, -res.m_normalOnBInWorld, on_a, on_b);
        return MK_ANSWERED;
    }
    // btGjkEpaSolver2::Penetration (GJK, then EPA, on the shapes with margins) first for
    // the penetration query; Distance (on the shapes without margins: a sphere is its
    // centre, a capsule its segment, so the margins are added back) first for the
    // distance query; each falls back to the other.
    btScalar ma = sa->getMargin(), mb = sb->getMargin();
    btGjkEpaSolver2::sResults r;
    auto penetration = [&]() {
        if (!btGjkEpaSolver2::Penetration(sa, ta, sb, tb, btVector3(1, 0, 0), r, true)) return false;
        // witnesses[0] on A, witnesses[1] on B, A's deepest point beyond B's along A->B.
        btVector3 d = r.witnesses[0] - r.witnesses[1];
        btScalar len = d.length();
        btVector3 n = len > 0 ? d / len : -r.normal;
        put(out, -len, n, r.witnesses[0], r.witnesses[1]);
        return true;
    };
    auto distance = [&]() {
        if (!btGjkEpaSolver2::Distance(sa, ta, sb, tb, btVector3(1, 0, 0), r)) return false;
        btVector3 d = r.witnesses[1] - r.witnesses[0];
        btScalar len = d.length();
        if (len <= ma + mb) return false;
        btVector3 n = d / len;
        put(out, len - ma - mb, n, r.witnesses[0] + n * ma, r.witnesses[1] - n * mb);
        return true;
    };
    bool ok = query == MK_PENETRATION ? (penetration() || distance()) : (distance() || penetration());
    return ok ? MK_ANSWERED : MK_NO_ANSWER;
}

}  // extern "C"

// ---- btDbvtBroadphase, for the broad-phase comparison --------------------------------
//
// One proxy per object id; each frame the caller sets every box, then asks for the
// pairs. Bullet keeps persistent pairs of its fattened tree volumes and cleans stale ones
// a few per frame, so what it reports is a superset of the exact overlaps; the caller
// filters with the exact boxes (as a physics step does before its narrow phase).
#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>

#include <cstdint>
#include <vector>

namespace {
struct Dbvt {
    btDefaultCollisionConfiguration config;
    btCollisionDispatcher dispatcher{&config};
    btDbvtBroadphase broad;
    std::vector<btBroadphaseProxy*> proxies;
};
}  // namespace

extern "C" {

void* mk_bullet_dbvt_new() { return new Dbvt(); }

void mk_bullet_dbvt_free(void* p) {
    auto* d = static_cast<Dbvt*>(p);
    for (auto* proxy : d->proxies)
        if (proxy) d->broad.destroyProxy(proxy, &d->dispatcher);
    delete d;
}

void mk_bullet_dbvt_set(void* p, int id, const mk_real* mins, const mk_real* maxs) {
    auto* d = static_cast<Dbvt*>(p);
    btVector3 lo{btScalar(mins[0]), btScalar(mins[1]), btScalar(mins[2])};
    btVector3 hi{btScalar(maxs[0]), btScalar(maxs[1]), btScalar(maxs[2])};
    if (id >= (int)d->proxies.size()) d->proxies.resize(id + 1, nullptr);
    if (!d->proxies[id]) {
        d->proxies[id] = d->broad.createProxy(lo, hi, 0, reinterpret_cast<void*>(intptr_t(id)),
                                              btBroadphaseProxy::DefaultFilter,
                                              btBroadphaseProxy::AllFilter, &d->dispatcher);
    } else {
        d->broad.setAabb(d->proxies[id], lo, hi, &d->dispatcher);
    }
}

// Runs the pair update and writes up to `cap` pairs (two ids each) into `out`; returns
// how many pairs Bullet holds.
long mk_bullet_dbvt_pairs(void* p, int* out, long cap) {
    auto* d = static_cast<Dbvt*>(p);
    d->broad.calculateOverlappingPairs(&d->dispatcher);
    btBroadphasePairArray& pairs = d->broad.getOverlappingPairCache()->getOverlappingPairArray();
    long n = pairs.size();
    for (long i = 0; i < n && i < cap; ++i) {
        out[2 * i] = int(intptr_t(pairs[i].m_pProxy0->m_clientObject));
        out[2 * i + 1] = int(intptr_t(pairs[i].m_pProxy1->m_clientObject));
    }
    return n;
}

}  // extern "C"
