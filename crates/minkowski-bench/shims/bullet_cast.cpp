// Bullet's ray test and convex casts for the cast report (src/peers/cast_ffi.rs), on the
// shapes of bullet.cpp (same margins: zero, except spheres and capsules whose margin is
// their radius).
//
// Rays: btCollisionWorld::rayTestSingle on one collision object, the single-object form
// of Bullet's ray test; on a convex shape it casts a point (a sphere of radius 0) with
// btSubsimplexConvexCast (variant 0, Bullet's default) or btGjkConvexCast (variant 1,
// kF_UseGjkConvexCastRaytest). Casts: btSubsimplexConvexCast (0), btGjkConvexCast (1),
// btContinuousConvexCollision with btGjkEpaPenetrationDepthSolver (2), from the poses at
// time 0 to the poses at max_toi (A still, B translated, no rotation).
//
// Answers: out = toi, normal (3), point a (3), point b (3); status 0 hit, 1 no answer,
// 3 miss. Rays: the normal is the shape's outward normal, point a the hit point. Casts:
// Bullet's m_normal points from B towards A and m_hitPoint lies on B; the normal is
// reversed here (A towards B) and point a is not given (NaN).
#include "shim.h"

#include <btBulletCollisionCommon.h>
#include <BulletCollision/NarrowPhaseCollision/btContinuousConvexCollision.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkConvexCast.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h>
#include <BulletCollision/NarrowPhaseCollision/btRaycastCallback.h>
#include <BulletCollision/NarrowPhaseCollision/btSubSimplexConvexCast.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>

#include <limits>

namespace {

const int HIT = 0, NO_ANSWER = 1, MISS = 3;

btTransform pose_at(const mk_real* p) {
    return btTransform(btQuaternion(btScalar(p[3]), btScalar(p[4]), btScalar(p[5]), btScalar(p[6])),
                       btVector3(btScalar(p[0]), btScalar(p[1]), btScalar(p[2])));
}

btVector3 vec(const mk_real* v) { return btVector3(btScalar(v[0]), btScalar(v[1]), btScalar(v[2])); }

void put(mk_real* out, btScalar toi, const btVector3& n, const btVector3* pa, const btVector3* pb) {
    const mk_real nan = std::numeric_limits<mk_real>::quiet_NaN();
    out[0] = toi;
    for (int i = 0; i < 3; ++i) {
        out[1 + i] = n[i];
        out[4 + i] = pa ? (*pa)[i] : nan;
        out[7 + i] = pb ? (*pb)[i] : nan;
    }
}

struct RayTarget {
    btConvexShape* shape;
    btCollisionObject object;
};

}  // namespace

extern "C" {

// A collision object for `shape` (from mk_bullet_shape_new, which must outlive it).
void* mk_bullet_ray_target_new(void* shape) {
    auto* t = new RayTarget();
    t->shape = static_cast<btConvexShape*>(shape);
    t->object.setCollisionShape(t->shape);
    return t;
}

void mk_bullet_ray_target_free(void* t) { delete static_cast<RayTarget*>(t); }

int mk_bullet_ray(int variant, void* target, const mk_real* pose, const mk_real* origin,
                  const mk_real* dir, mk_real max_toi, mk_real* out) {
    auto* t = static_cast<RayTarget*>(target);
    btTransform at = pose_at(pose);
    t->object.setWorldTransform(at);
    btVector3 from = vec(origin);
    btVector3 to = from + vec(dir) * btScalar(max_toi);
    btTransform tf, tt;
    tf.setIdentity();
    tf.setOrigin(from);
    tt.setIdentity();
    tt.setOrigin(to);
    btCollisionWorld::ClosestRayResultCallback cb(from, to);
    cb.m_flags = variant == 1 ? btTriangleRaycastCallback::kF_UseGjkConvexCastRaytest
                              : btTriangleRaycastCallback::kF_UseSubSimplexConvexCastRaytest;
    btCollisionWorld::rayTestSingle(tf, tt, &t->object, t->shape, at, cb);
    if (!cb.hasHit()) return MISS;
    btVector3 n = cb.m_hitNormalWorld;
    if (n.length2() > 0) n.normalize();
    put(out, cb.m_closestHitFraction * btScalar(max_toi), n, &cb.m_hitPointWorld, nullptr);
    return HIT;
}

int mk_bullet_cast(int variant, const void* a, const mk_real* pa, const void* b, const mk_real* pb,
                   const mk_real* vel, mk_real max_toi, mk_real* out) {
    auto* sa = const_cast<btConvexShape*>(static_cast<const btConvexShape*>(a));
    auto* sb = const_cast<btConvexShape*>(static_cast<const btConvexShape*>(b));
    btTransform fa = pose_at(pa), fb = pose_at(pb);
    btTransform tb = fb;
    tb.setOrigin(fb.getOrigin() + vec(vel) * btScalar(max_toi));
    btVoronoiSimplexSolver simplex;
    btConvexCast::CastResult r;
    bool hit = false;
    if (variant == 0) {
        btSubsimplexConvexCast c(sa, sb, &simplex);
        hit = c.calcTimeOfImpact(fa, fa, fb, tb, r);
    } else if (variant == 1) {
        btGjkConvexCast c(sa, sb, &simplex);
        hit = c.calcTimeOfImpact(fa, fa, fb, tb, r);
    } else if (variant == 2) {
        btGjkEpaPenetrationDepthSolver epa;
        btContinuousConvexCollision c(sa, sb, &simplex, &epa);
        hit = c.calcTimeOfImpact(fa, fa, fb, tb, r);
    } else {
        return NO_ANSWER;
    }
    if (!hit) return MISS;
    btVector3 n = -r.m_normal;
    if (n.length2() > 0) n.normalize();
    put(out, r.m_fraction * btScalar(max_toi), n, nullptr, &r.m_hitPoint);
    return HIT;
}

}  // extern "C"
