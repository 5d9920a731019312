// coal 3 (the successor of hpp-fcl) behind shim.h, double precision.
//
// Variants: 0 = coal's default GJK, 1 = GJK with Nesterov acceleration (coal's
// "accelerated GJK"). Distances are coal's signed distances (EPA when overlapping).
// coal's capsule, cylinder and cone stand along z and take full lengths; a fixed local
// rotation puts them along y.
#include "eigen_pose.hpp"
#include "shim.h"

#include <coal/collision.h>
#include <coal/distance.h>
#include <coal/shape/convex.h>
#include <coal/shape/geometric_shapes.h>

#include <memory>
#include <vector>

#define FN(name) mk_coal_##name

namespace {

struct Shape {
    std::shared_ptr<coal::CollisionGeometry> geom;
    bool z_axis = false;  // rotate local y onto the library's z
};

coal::Transform3s pose_of(const Shape& s, const mk_real* p) {
    return coal::Transform3s(mk_rotation(p, s.z_axis), coal::Vec3s(p[0], p[1], p[2]));
}

}  // namespace

extern "C" {

void* FN(shape_new)(int kind, const mk_real* q, const mk_real* verts, int nverts, const int* faces,
                    int nfaces) {
    auto* s = new Shape();
    switch (kind) {
        case MK_SPHERE:
            s->geom = std::make_shared<coal::Sphere>(q[0]);
            break;
        case MK_BOX:
            s->geom = std::make_shared<coal::Box>(2 * q[0], 2 * q[1], 2 * q[2]);
            break;
        case MK_CAPSULE:
            s->geom = std::make_shared<coal::Capsule>(q[1], 2 * q[0]);
            s->z_axis = true;
            break;
        case MK_CYLINDER:
            s->geom = std::make_shared<coal::Cylinder>(q[1], 2 * q[0]);
            s->z_axis = true;
            break;
        case MK_CONE:
            s->geom = std::make_shared<coal::Cone>(q[1], 2 * q[0]);
            s->z_axis = true;
            break;
        case MK_HULL: {
            auto pts = std::make_shared<std::vector<coal::Vec3s>>();
            for (int i = 0; i < nverts; ++i)
                pts->emplace_back(verts[3 * i], verts[3 * i + 1], verts[3 * i + 2]);
            // coal's convex wants triangles: fan each (convex) face.
            auto tris = std::make_shared<std::vector<coal::Triangle>>();
            const int* f = faces;
            for (int k = 0; k < nfaces; ++k) {
                int n = *f++;
                for (int j = 1; j + 1 < n; ++j) tris->emplace_back(f[0], f[j], f[j + 1]);
                f += n;
            }
            s->geom = std::make_shared<coal::Convex<coal::Triangle>>(
                pts, (unsigned)pts->size(), tris, (unsigned)tris->size());
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

int FN(intersect)(int variant, const void* a, const mk_real* pa, const void* b, const mk_real* pb,
                  int* hit) {
    const auto& sa = *static_cast<const Shape*>(a);
    const auto& sb = *static_cast<const Shape*>(b);
    coal::CollisionRequest req(coal::NO_REQUEST, 1);
    req.enable_contact = false;
    if (variant == 1) req.gjk_variant = coal::GJKVariant::NesterovAcceleration;
    coal::CollisionResult res;
    coal::collide(sa.geom.get(), pose_of(sa, pa), sb.geom.get(), pose_of(sb, pb), req, res);
    *hit = res.isCollision() ? 1 : 0;
    return MK_ANSWERED;
}

int FN(query)(int variant, int, const void* a, const mk_real* pa, const void* b, const mk_real* pb,
              mk_real* out) {
    const auto& sa = *static_cast<const Shape*>(a);
    const auto& sb = *static_cast<const Shape*>(b);
    coal::DistanceRequest req(true, true);
    if (variant == 1) req.gjk_variant = coal::GJKVariant::NesterovAcceleration;
    coal::DistanceResult res;
    coal::distance(sa.geom.get(), pose_of(sa, pa), sb.geom.get(), pose_of(sb, pb), req, res);
    // normal = (p2 - p1) / signed distance: from A towards B either way.
    out[0] = res.min_distance;
    for (int i = 0; i < 3; ++i) {
        out[1 + i] = res.normal[i];
        out[4 + i] = res.nearest_points[0][i];
        out[7 + i] = res.nearest_points[1][i];
    }
    return MK_ANSWERED;
}

}  // extern "C"
