// Bullet's static geometry for the static report (src/peers/static_ffi.rs):
// btHeightfieldTerrainShape and btBvhTriangleMeshShape, each with or without the
// internal-edge fix (btGenerateInternalEdgeInfo at build, btAdjustInternalEdgeContacts in
// the contact-added callback), rays through btCollisionWorld::rayTestSingle, contacts
// through the convex-concave collision algorithm that a btCollisionWorld would run.
//
// Frames. The suite's field has rows along +z and columns along +x, sample [i][j] at
// origin + (j sx, h, i sz). Bullet's heightfield (up axis 1) reads sample (x, j) at
// data[j * width + x] (the same row-major layout, width = columns, length = rows), puts
// it at ((-(width-1)/2 + x) sx, h - mid, (-(length-1)/2 + j) sz) with mid the centre of
// the [minHeight, maxHeight] range given, and splits cells along the anti-diagonal by
// default (flipQuadEdges false): placed at origin + ((cols-1) sx / 2, mid, (rows-1) sz / 2)
// its vertices are the suite's samples. Meshes are in the world frame.
//
// Margins: zero on the static shapes (btConcaveShape's margin is added to the triangles).
// The convex shapes are bullet.cpp's (zero margin, except spheres and capsules whose
// margin is their radius).
//
// Memory: the shim copies the heights / vertices and indices it is given into storage it
// owns (Bullet's shapes only point at the caller's arrays), inside the window measured
// with glibc's mallinfo2 (uordblks + hblkhd: heap and mmap'd bytes in use).
#include "shim.h"

#include <btBulletCollisionCommon.h>
#include <BulletCollision/CollisionDispatch/btInternalEdgeUtility.h>
#include <BulletCollision/CollisionShapes/btHeightfieldTerrainShape.h>
#include <BulletCollision/CollisionShapes/btTriangleInfoMap.h>

#include <malloc.h>

#include <limits>
#include <vector>

namespace {

btTransform pose_at(const mk_real* p) {
    return btTransform(btQuaternion(btScalar(p[3]), btScalar(p[4]), btScalar(p[5]), btScalar(p[6])),
                       btVector3(btScalar(p[0]), btScalar(p[1]), btScalar(p[2])));
}

btVector3 vec(const mk_real* v) { return btVector3(btScalar(v[0]), btScalar(v[1]), btScalar(v[2])); }

size_t heap_in_use() {
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

struct Static {
    std::vector<btScalar> heights;
    std::vector<btScalar> verts;
    std::vector<int> idx;
    btTriangleIndexVertexArray* array = nullptr;
    btConcaveShape* shape = nullptr;
    btTriangleInfoMap* info = nullptr;
    btCollisionObject object;
    ~Static() {
        delete shape;
        delete array;
        delete info;
    }
};

// Applies Bullet's internal-edge fix to a new contact with a triangle of a shape built
// with the fix (its object carries CF_CUSTOM_MATERIAL_CALLBACK): the wrapper whose shape
// is the triangle is the mesh side.
bool contact_added(btManifoldPoint& cp, const btCollisionObjectWrapper* w0, int part0, int index0,
                   const btCollisionObjectWrapper* w1, int part1, int index1) {
    if (w1->getCollisionShape()->getShapeType() == TRIANGLE_SHAPE_PROXYTYPE)
        btAdjustInternalEdgeContacts(cp, w1, w0, part1, index1);
    else if (w0->getCollisionShape()->getShapeType() == TRIANGLE_SHAPE_PROXYTYPE)
        btAdjustInternalEdgeContacts(cp, w0, w1, part0, index0);
    return true;
}

void finish(Static* s, bool fix) {
    s->shape->setMargin(0);
    s->object.setCollisionShape(s->shape);
    if (fix) {
        s->object.setCollisionFlags(s->object.getCollisionFlags() |
                                    btCollisionObject::CF_CUSTOM_MATERIAL_CALLBACK);
        gContactAddedCallback = contact_added;
    }
}

struct Prober {
    Static* target;
    btConvexShape* shape;
    btCollisionObject object;
    btDefaultCollisionConfiguration config;
    btCollisionDispatcher dispatcher;
    btCollisionAlgorithm* algorithm = nullptr;
    btManifoldArray manifolds;
    Prober(Static* t, btConvexShape* s) : target(t), shape(s), dispatcher(&config) {
        object.setCollisionShape(shape);
    }
    ~Prober() {
        if (algorithm) {
            algorithm->~btCollisionAlgorithm();
            dispatcher.freeCollisionAlgorithm(algorithm);
        }
    }
};

}  // namespace

extern "C" {

size_t mk_bullet_static_heap() { return heap_in_use(); }

// A field of rows x cols samples (row-major, rows along z), cells sx, sz, sample [0][0]
// at origin; fix: generate the internal-edge info.
void* mk_bullet_static_field_new(int rows, int cols, const mk_real* h, mk_real sx, mk_real sz,
                                 const mk_real* origin, int fix) {
    auto* s = new Static();
    s->heights.assign(h, h + size_t(rows) * size_t(cols));
    btScalar lo = std::numeric_limits<btScalar>::infinity(), hi = -lo;
    for (btScalar v : s->heights) {
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    auto* f = new btHeightfieldTerrainShape(cols, rows, s->heights.data(), lo, hi, 1, false);
    f->setLocalScaling(btVector3(btScalar(sx), 1, btScalar(sz)));
    f->buildAccelerator();
    s->shape = f;
    if (fix) {
        s->info = new btTriangleInfoMap();
        btGenerateInternalEdgeInfo(f, s->info);
    }
    finish(s, fix != 0);
    btTransform at;
    at.setIdentity();
    at.setOrigin(btVector3(btScalar(origin[0] + (cols - 1) * sx / 2), btScalar(origin[1] + (lo + hi) / 2),
                           btScalar(origin[2] + (rows - 1) * sz / 2)));
    s->object.setWorldTransform(at);
    return s;
}

// A mesh of nverts vertices (x y z) and ntris index triples, world frame.
void* mk_bullet_static_mesh_new(const mk_real* verts, int nverts, const int* idx, int ntris, int fix) {
    auto* s = new Static();
    s->verts.assign(verts, verts + size_t(nverts) * 3);
    s->idx.assign(idx, idx + size_t(ntris) * 3);
    s->array = new btTriangleIndexVertexArray(ntris, s->idx.data(), 3 * sizeof(int), nverts,
                                              s->verts.data(), 3 * sizeof(btScalar));
    auto* m = new btBvhTriangleMeshShape(s->array, true, true);
    s->shape = m;
    if (fix) {
        s->info = new btTriangleInfoMap();
        btGenerateInternalEdgeInfo(m, s->info);
    }
    finish(s, fix != 0);
    btTransform at;
    at.setIdentity();
    s->object.setWorldTransform(at);
    return s;
}

void mk_bullet_static_free(void* s) { delete static_cast<Static*>(s); }

// out: toi, normal (3). Status 0 hit, 3 miss.
int mk_bullet_static_ray(void* target, const mk_real* origin, const mk_real* dir, mk_real max_toi,
                         mk_real* out) {
    auto* s = static_cast<Static*>(target);
    btVector3 from = vec(origin);
    btVector3 to = from + vec(dir) * btScalar(max_toi);
    btTransform tf, tt;
    tf.setIdentity();
    tf.setOrigin(from);
    tt.setIdentity();
    tt.setOrigin(to);
    btCollisionWorld::ClosestRayResultCallback cb(from, to);
    btCollisionWorld::rayTestSingle(tf, tt, &s->object, s->shape, s->object.getWorldTransform(), cb);
    if (!cb.hasHit()) return 3;
    btVector3 n = cb.m_hitNormalWorld;
    if (n.length2() > 0) n.normalize();
    out[0] = cb.m_closestHitFraction * btScalar(max_toi);
    for (int i = 0; i < 3; ++i) out[1 + i] = n[i];
    return 0;
}

// A prober for the convex `shape` (from mk_bullet_shape_new, which must outlive it)
// against `target`.
void* mk_bullet_static_prober_new(void* target, void* shape) {
    return new Prober(static_cast<Static*>(target), static_cast<btConvexShape*>(shape));
}

void mk_bullet_static_prober_free(void* p) { delete static_cast<Prober*>(p); }

// Contacts of the convex shape at `pose` with the static geometry: the algorithm is made
// once per prober (as a collision world keeps it per pair), its manifolds are cleared
// before each query. out: per point distance, normal out of the static geometry (3),
// point on it (3); at most `cap` points; returns the count (points with distance <= 0).
int mk_bullet_static_contacts(void* prober, const mk_real* pose, mk_real* out, int cap) {
    auto* p = static_cast<Prober*>(prober);
    p->object.setWorldTransform(pose_at(pose));
    btCollisionObjectWrapper a(nullptr, p->shape, &p->object, p->object.getWorldTransform(), -1, -1);
    btCollisionObjectWrapper b(nullptr, p->target->shape, &p->target->object,
                               p->target->object.getWorldTransform(), -1, -1);
    if (!p->algorithm) p->algorithm = p->dispatcher.findAlgorithm(&a, &b, nullptr, BT_CONTACT_POINT_ALGORITHMS);
    if (!p->algorithm) return -1;
    p->manifolds.resize(0);
    p->algorithm->getAllContactManifolds(p->manifolds);
    for (int i = 0; i < p->manifolds.size(); ++i) p->manifolds[i]->clearManifold();
    btManifoldResult result(&a, &b);
    btDispatcherInfo info;
    p->algorithm->processCollision(&a, &b, info, &result);
    p->manifolds.resize(0);
    p->algorithm->getAllContactManifolds(p->manifolds);
    int n = 0;
    for (int i = 0; i < p->manifolds.size(); ++i) {
        btPersistentManifold* m = p->manifolds[i];
        // m_normalWorldOnB points from B towards A; B is the manifold's body 1.
        bool static_is_b = m->getBody1() == &p->target->object;
        for (int k = 0; k < m->getNumContacts() && n < cap; ++k) {
            const btManifoldPoint& pt = m->getContactPoint(k);
            if (pt.getDistance() > 0) continue;
            btVector3 nrm = static_is_b ? pt.m_normalWorldOnB : -pt.m_normalWorldOnB;
            const btVector3& on = static_is_b ? pt.getPositionWorldOnB() : pt.getPositionWorldOnA();
            mk_real* o = out + 7 * n;
            o[0] = pt.getDistance();
            for (int c = 0; c < 3; ++c) {
                o[1 + c] = nrm[c];
                o[4 + c] = on[c];
            }
            ++n;
        }
    }
    return n;
}

}  // extern "C"
