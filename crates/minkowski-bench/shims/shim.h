/* The C interface every peer shim implements (see src/peers/ffi.rs).
 *
 * Shapes are given in minkowski's conventions and each shim converts them to its
 * library's: lengths are half extents / half heights, and capsules, cylinders and cones
 * stand along their local +y axis, centred at mid-height.
 *
 *   kind    params
 *   0 sphere   radius
 *   1 box      hx hy hz
 *   2 capsule  half_height radius
 *   3 cylinder half_height radius
 *   4 cone     half_height radius     (apex at +half_height)
 *   5 hull     -; `verts` holds nverts points (x y z), `faces` the hull's faces as a
 *              count-prefixed index list (n i0 .. i(n-1), counter-clockwise from outside)
 *
 * A pose is x y z qx qy qz qw (translation, unit quaternion), world from local.
 * A query answer is 10 numbers: signed distance (negative = penetration depth), the unit
 * normal from A towards B (3), the point on A (3) and the point on B (3), world frame.
 * Status: 0 answered, 1 the peer gave no answer, 2 the peer has no such query.
 */
#ifndef MK_SHIM_H
#define MK_SHIM_H

#ifndef MK_REAL
#define MK_REAL double
#endif
typedef MK_REAL mk_real;

enum { MK_SPHERE = 0, MK_BOX = 1, MK_CAPSULE = 2, MK_CYLINDER = 3, MK_CONE = 4, MK_HULL = 5 };
enum { MK_ANSWERED = 0, MK_NO_ANSWER = 1, MK_UNSUPPORTED = 2 };
/* Query kinds for `*_query`. */
enum { MK_DISTANCE = 0, MK_PENETRATION = 1 };

#define MK_DECLARE(p)                                                                     \
    void *mk_##p##_shape_new(int kind, const mk_real *params, const mk_real *verts,       \
                             int nverts, const int *faces, int nfaces);                   \
    void mk_##p##_shape_free(void *shape);                                                \
    int mk_##p##_intersect(int variant, const void *a, const mk_real *pose_a,             \
                           const void *b, const mk_real *pose_b, int *hit);               \
    int mk_##p##_query(int variant, int query, const void *a, const mk_real *pose_a,      \
                       const void *b, const mk_real *pose_b, mk_real *out);

#endif
