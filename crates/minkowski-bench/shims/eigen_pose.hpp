// The rotation of a shim pose (shim.h) as an Eigen matrix, for the Eigen-based peers
// (coal, FCL). Internal linkage: each shim compiles it against its own Eigen.
#ifndef MK_EIGEN_POSE_HPP
#define MK_EIGEN_POSE_HPP

#include "shim.h"

#include <Eigen/Geometry>

namespace {

// World-from-library rotation for pose `p`. With `z_axis`, the library's shape stands
// along its z axis where ours stands along y: a quarter turn about x takes the library
// frame to ours (z -> y, y -> -z) before the pose's rotation.
inline Eigen::Matrix3d mk_rotation(const mk_real* p, bool z_axis) {
    Eigen::Matrix3d r = Eigen::Quaterniond(p[6], p[3], p[4], p[5]).toRotationMatrix();
    if (z_axis) {
        Eigen::Matrix3d fix;
        fix << 1, 0, 0, 0, 0, 1, 0, -1, 0;
        r = r * fix;
    }
    return r;
}

}  // namespace

#endif
