// FCL 0.7 behind shim.h, double precision, narrow phase by libccd (GST_LIBCCD, FCL's
// default). FCL's capsule, cylinder and cone stand along z and take full lengths; a fixed
// local rotation puts them along y. Distances are FCL's signed distances.
//
// Debian's FCL keeps assert(): GST_INDEP signed distance on overlapping hulls aborts the
// process, so only GST_LIBCCD is used.
#include "eigen_pose.hpp"
#include "shim.h"

#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/capsule.h>
#include <fcl/geometry/shape/cone.h>
#include <fcl/geometry/shape/convex.h>
#include <fcl/geometry/shape/cylinder.h>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/distance.h>

#include <memory>
#include <vector>

#define FN(name) mk_fcl_##name

namespace {

struct Shape {
    std::shared_ptr<fcl::CollisionGeometryd> geom;
    bool z_axis = false;
};

fcl::Transform3d pose_of(const Shape& s, const mk_real* p) {
    fcl::Transform3d t = fcl::Transform3d::Identity();
    t.translation() = fcl::Vector3d(p[0], p[1], p[2]);
    t.linear() = mk_rotation(p, s.z_axis);
    return t;
}

}  // namespace

extern "C" {

void* FN(shape_new)(int kind, const mk_real* q, const mk_real* verts, int nverts, const int* faces,
                    int nfaces) {
    auto* s = new Shape();
    switch (kind) {
        case MK_SPHERE:
            s->geom = std::make_shared<fcl::Sphered>(q[0]);
            break;
        case MK_BOX:
            s->geom = std::make_shared<fcl::Boxd>(2 * q[0], 2 * q[1], 2 * q[2]);
            break;
        case MK_CAPSULE:
            s->geom = std::make_shared<fcl::Capsuled>(q[1], 2 * q[0]);
            s->z_axis = true;
            break;
        case MK_CYLINDER:
            s->geom = std::make_shared<fcl::Cylinderd>(q[1], 2 * q[0]);
            s->z_axis = true;
            break;
        case MK_CONE:
            s->geom = std::make_shared<fcl::Coned>(q[1], 2 * q[0]);
            s->z_axis = true;
            break;
        case MK_HULL: {
            auto pts = std::make_shared<std::vector<fcl::Vector3d>>();
            for (int i = 0; i < nverts; ++i)
                pts->emplace_back(verts[3 * i], verts[3 * i + 1], verts[3 * i + 2]);
            auto list = std::make_shared<std::vector<int>>();
            const int* f = faces;
            for (int k = 0; k < nfaces; ++k) {
                int n = *f;
                list->insert(list->end(), f, f + n + 1);
                f += n + 1;
            }
            s->geom = std::make_shared<fcl::Convexd>(pts, nfaces, list);
            break;
        }
        default:
            delete s;
            return nullptr;
    }
    s->geom->computeLocalAABB();
    return s;
}

void FN(shape_free)(void* s) { delete static_cast<Shape*>(s); }

int FN(intersect)(int, const void* a, const mk_real* pa, const void* b, const mk_real* pb,
                  int* hit) {
    const auto& sa = *static_cast<const Shape*>(a);
    const auto& sb = *static_cast<const Shape*>(b);
    fcl::CollisionRequestd req;  // one contact, no contact details, GST_LIBCCD
    fcl::CollisionResultd res;
    fcl::collide(sa.geom.get(), pose_of(sa, pa), sb.geom.get(), pose_of(sb, pb), req, res);
    *hit = res.isCollision() ? 1 : 0;
    return MK_ANSWERED;
}

int FN(query)(int, int, const void* a, const mk_real* pa, const void* b, const mk_real* pb,
              mk_real* out) {
    const auto& sa = *static_cast<const Shape*>(a);
    const auto& sb = *static_cast<const Shape*>(b);
    fcl::DistanceRequestd req(true, true, 0.0, 0.0, 1e-6, fcl::GST_LIBCCD);
    fcl::DistanceResultd res;
    fcl::distance(sa.geom.get(), pose_of(sa, pa), sb.geom.get(), pose_of(sb, pb), req, res);
    const fcl::Vector3d& p = res.nearest_points[0];
    const fcl::Vector3d& q = res.nearest_points[1];
    // FCL 0.7 reports no normal: from the witnesses (B minus A when apart, A minus B when
    // overlapping), zero when they coincide.
    fcl::Vector3d d = res.min_distance >= 0 ? fcl::Vector3d(q - p) : fcl::Vector3d(p - q);
    double len = d.norm();
    fcl::Vector3d n = len > 0 ? fcl::Vector3d(d / len) : fcl::Vector3d::Zero();
    out[0] = res.min_distance;
    for (int i = 0; i < 3; ++i) {
        out[1 + i] = n[i];
        out[4 + i] = p[i];
        out[7 + i] = q[i];
    }
    return MK_ANSWERED;
}

}  // extern "C"
