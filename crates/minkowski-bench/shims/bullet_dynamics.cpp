// Bullet's btDiscreteDynamicsWorld for the rigid-body peer table
// (src/peers/dynamics_bullet.rs, `dynamics-report`). Built in both precisions like the
// other Bullet shims; only the f32 build calls it (minkowski-dynamics is single
// precision).
//
// The world: btDefaultCollisionConfiguration, btCollisionDispatcher, btDbvtBroadphase,
// btSequentialImpulseConstraintSolver, one stepSimulation(dt, 0) per step (maxSubSteps 0:
// exactly one internal step of dt), solver iterations as given, everything else Bullet's
// default (split impulse, warm starting, ERP 0.2). Single-threaded: Debian's build has
// no task scheduler enabled here.
//
// Bodies keep the caller's order. Shapes: btSphereShape, btCapsuleShape (along +y, its
// height the segment's length), btBoxShape with Bullet's default margin (0.04) or half of
// its smallest half extent when that is less (a card 0.02 thick): Bullet's box margin is
// inside the given extents, so the outer box is the caller's, with edges rounded by the
// margin. A compound is a btCompoundShape of such parts. Static planes are
// btStaticPlaneShape.
//
// Friction: Bullet multiplies the two objects' frictions, so each object gets the square
// root of its coefficient (the product is then the geometric mean the other engines use).
//
// Sleeping: btRigidBody::setSleepingThresholds(linear, angular) and the global
// gDeactivationTime (seconds still before an island may sleep); when sleeping is off,
// every body is DISABLE_DEACTIVATION.
//
// Continuous collision: each dynamic body is swept (a sphere of 0.9 times its inner
// radius) when it moves more than half its inner radius in a step, like minkowski's CCD
// of fast bodies.
//
// Kinematic bodies (CF_KINEMATIC_OBJECT, never deactivated) move at their constant
// velocities: before each step their motion state is set to the pose at the step's end,
// p(t) = p0 + v t, q(t) = rot(ω t) q0, from which Bullet derives their velocity for the
// contacts (saveKinematicState).
#include "shim.h"

#include <btBulletDynamicsCommon.h>

#include <cmath>
#include <vector>

namespace {

btVector3 vec(const mk_real* v) { return btVector3(btScalar(v[0]), btScalar(v[1]), btScalar(v[2])); }

btTransform pose_at(const mk_real* p) {
    return btTransform(btQuaternion(btScalar(p[3]), btScalar(p[4]), btScalar(p[5]), btScalar(p[6])),
                       btVector3(btScalar(p[0]), btScalar(p[1]), btScalar(p[2])));
}

struct Kinematic {
    btRigidBody* body;
    btTransform start;
    btVector3 v;
    btVector3 w;
};

struct World {
    btDefaultCollisionConfiguration config;
    btCollisionDispatcher dispatcher{&config};
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &config};
    std::vector<btCollisionShape*> shapes;
    std::vector<btMotionState*> states;
    std::vector<btRigidBody*> bodies;  // the caller's bodies, in order
    std::vector<btRigidBody*> planes;
    std::vector<Kinematic> kinematic;
    std::vector<int> dynamic;  // 1 for a dynamic body
    btScalar dt = btScalar(1.0 / 60.0);
    long steps = 0;
    bool sleep = true;
    btScalar lin_sleep = 0, ang_sleep = 0;

    ~World() {
        for (auto* b : bodies) {
            world.removeRigidBody(b);
            delete b;
        }
        for (auto* b : planes) {
            world.removeRigidBody(b);
            delete b;
        }
        for (auto* s : states) delete s;
        for (auto* s : shapes) delete s;
    }
};

btConvexShape* part(int kind, const mk_real* q) {
    switch (kind) {
        case MK_SPHERE:
            return new btSphereShape(btScalar(q[0]));
        case MK_BOX: {
            auto* b = new btBoxShape(vec(q));
            btScalar m = b->getMargin();
            btScalar least = btScalar(std::fmin(q[0], std::fmin(q[1], q[2])));
            if (m > btScalar(0.5) * least) b->setMargin(btScalar(0.5) * least);
            return b;
        }
        case MK_CAPSULE:
            return new btCapsuleShape(btScalar(q[1]), btScalar(2 * q[0]));
        default:
            return nullptr;
    }
}

}  // namespace

extern "C" {

void* mk_bullet_dyn_new(const mk_real* gravity, mk_real dt, int iterations, int sleep,
                        mk_real lin_sleep, mk_real ang_sleep, mk_real time_to_sleep) {
    auto* w = new World();
    w->world.setGravity(vec(gravity));
    w->world.getSolverInfo().m_numIterations = iterations;
    w->dt = btScalar(dt);
    w->sleep = sleep != 0;
    w->lin_sleep = btScalar(lin_sleep);
    w->ang_sleep = btScalar(ang_sleep);
    gDeactivationTime = btScalar(time_to_sleep);
    return w;
}

void mk_bullet_dyn_free(void* w) { delete static_cast<World*>(w); }

// The half-space {x : n · x <= offset}.
int mk_bullet_dyn_add_plane(void* wp, const mk_real* normal, mk_real offset, mk_real friction,
                            mk_real restitution) {
    auto* w = static_cast<World*>(wp);
    auto* s = new btStaticPlaneShape(vec(normal), btScalar(offset));
    w->shapes.push_back(s);
    btRigidBody::btRigidBodyConstructionInfo info(0, nullptr, s);
    auto* b = new btRigidBody(info);
    b->setFriction(btScalar(std::sqrt(friction)));
    b->setRestitution(btScalar(restitution));
    w->world.addRigidBody(b);
    w->planes.push_back(b);
    return int(w->planes.size()) - 1;
}

// kind: 0 dynamic, 1 kinematic, 2 static. `kinds` / `params` (3 each) / `poses` (7 each,
// local) describe `nparts` parts; `compound` 0 means one part at the identity. `pose`:
// the collider's world pose (the centre of mass for every body here: symmetric shapes).
// Returns the body's index, or -1 for an unknown part kind.
int mk_bullet_dyn_add_body(void* wp, int kind, int nparts, const int* kinds, const mk_real* params,
                           const mk_real* poses, int compound, const mk_real* pose, mk_real mass,
                           const mk_real* linvel, const mk_real* angvel, mk_real friction,
                           mk_real restitution) {
    auto* w = static_cast<World*>(wp);
    btCollisionShape* shape = nullptr;
    if (compound) {
        auto* c = new btCompoundShape();
        for (int i = 0; i < nparts; ++i) {
            btConvexShape* p = part(kinds[i], params + 3 * i);
            if (!p) {
                delete c;
                return -1;
            }
            w->shapes.push_back(p);
            c->addChildShape(pose_at(poses + 7 * i), p);
        }
        shape = c;
    } else {
        if (nparts < 1) return -1;
        shape = part(kinds[0], params);
        if (!shape) return -1;
    }
    w->shapes.push_back(shape);
    btScalar m = kind == 0 ? btScalar(mass) : btScalar(0);
    btVector3 inertia(0, 0, 0);
    if (kind == 0) shape->calculateLocalInertia(m, inertia);
    btMotionState* state = nullptr;
    if (kind == 1) {
        state = new btDefaultMotionState(pose_at(pose));
        w->states.push_back(state);
    }
    btRigidBody::btRigidBodyConstructionInfo info(m, state, shape, inertia);
    info.m_startWorldTransform = pose_at(pose);
    info.m_friction = btScalar(std::sqrt(friction));
    info.m_restitution = btScalar(restitution);
    auto* b = new btRigidBody(info);
    if (kind == 1) {
        b->setCollisionFlags(b->getCollisionFlags() | btCollisionObject::CF_KINEMATIC_OBJECT);
        b->setActivationState(DISABLE_DEACTIVATION);
        w->kinematic.push_back({b, pose_at(pose), vec(linvel), vec(angvel)});
    } else if (kind == 0) {
        b->setLinearVelocity(vec(linvel));
        b->setAngularVelocity(vec(angvel));
        b->setSleepingThresholds(w->lin_sleep, w->ang_sleep);
        // Continuous collision as minkowski's (a body moving more than half its size in
        // a step is swept): Bullet sweeps a sphere inside the body when it moves more
        // than the threshold.
        if (!compound) {
            const mk_real* q = params;
            btScalar inner = kinds[0] == MK_BOX ? btScalar(std::fmin(q[0], std::fmin(q[1], q[2])))
                                                : btScalar(kinds[0] == MK_CAPSULE ? q[1] : q[0]);
            b->setCcdMotionThreshold(btScalar(0.5) * inner);
            b->setCcdSweptSphereRadius(btScalar(0.9) * inner);
        }
        if (!w->sleep) b->setActivationState(DISABLE_DEACTIVATION);
    }
    w->world.addRigidBody(b);
    w->bodies.push_back(b);
    w->dynamic.push_back(kind == 0 ? 1 : 0);
    return int(w->bodies.size()) - 1;
}

void mk_bullet_dyn_step(void* wp) {
    auto* w = static_cast<World*>(wp);
    w->steps += 1;
    btScalar t = w->dt * btScalar(w->steps);
    for (auto& k : w->kinematic) {
        btTransform next = k.start;
        next.setOrigin(k.start.getOrigin() + k.v * t);
        btScalar speed = k.w.length();
        if (speed > btScalar(0)) {
            btQuaternion turn(k.w / speed, speed * t);
            next.setRotation(turn * k.start.getRotation());
        }
        k.body->getMotionState()->setWorldTransform(next);
    }
    w->world.stepSimulation(w->dt, 0);
}

int mk_bullet_dyn_count(void* wp) { return int(static_cast<World*>(wp)->bodies.size()); }

// Pose (x y z qx qy qz qw), mass (0 unless dynamic) and whether awake of body `i`.
void mk_bullet_dyn_body(void* wp, int i, mk_real* pose, mk_real* mass, int* awake) {
    auto* w = static_cast<World*>(wp);
    btRigidBody* b = w->bodies[size_t(i)];
    const btTransform& t = b->getWorldTransform();
    btQuaternion q = t.getRotation();
    for (int k = 0; k < 3; ++k) pose[k] = mk_real(t.getOrigin()[k]);
    pose[3] = mk_real(q.x());
    pose[4] = mk_real(q.y());
    pose[5] = mk_real(q.z());
    pose[6] = mk_real(q.w());
    *mass = w->dynamic[size_t(i)] && b->getInvMass() > 0 ? mk_real(1 / b->getInvMass()) : mk_real(0);
    *awake = w->dynamic[size_t(i)] && b->isActive() ? 1 : 0;
}

}  // extern "C"
