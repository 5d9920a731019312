/* libccd 2 behind shim.h (Debian's build is double precision). libccd has no shapes of
 * its own: the support functions below are the shim's, in each shape's local frame, and
 * it has no separation distance (the distance query is unsupported).
 *
 * Variant 0: GJK intersection and GJK + EPA penetration. The EPA tolerance is set to
 * 1e-8 (libccd's default, 1e-4, would make every depth differ from the reference by
 * design) and the iteration bound to 1000 (the default is unbounded).
 */
#include "shim.h"

#include <ccd/ccd.h>
#include <ccd/quat.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int kind;
    double q[3];
    double *verts;
    int nverts;
} shape_t;

typedef struct {
    const shape_t *s;
    ccd_quat_t rot, inv;
    ccd_vec3_t pos;
} placed_t;

void *mk_ccd_shape_new(int kind, const mk_real *q, const mk_real *verts, int nverts,
                       const int *faces, int nfaces) {
    (void)faces;
    (void)nfaces;
    if (kind < MK_SPHERE || kind > MK_HULL) return NULL;
    shape_t *s = (shape_t *)calloc(1, sizeof(shape_t));
    if (!s) return NULL;
    s->kind = kind;
    if (kind != MK_HULL) {
        int nparams = kind == MK_BOX ? 3 : (kind == MK_SPHERE ? 1 : 2);
        for (int i = 0; i < nparams; ++i) s->q[i] = q[i];
    } else {
        s->verts = (double *)malloc(sizeof(double) * 3 * (size_t)(nverts > 0 ? nverts : 1));
        if (!s->verts) {
            free(s);
            return NULL;
        }
        for (int i = 0; i < 3 * nverts; ++i) s->verts[i] = verts[i];
        s->nverts = nverts;
    }
    return s;
}

void mk_ccd_shape_free(void *p) {
    shape_t *s = (shape_t *)p;
    if (!s) return;
    free(s->verts);
    free(s);
}

static double sgn(double x) { return x >= 0 ? 1.0 : -1.0; }

/* Local support point of the shape in local direction d. */
static void local_support(const shape_t *s, const double d[3], double out[3]) {
    double h, r, rl;
    switch (s->kind) {
        case MK_SPHERE: {
            double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            r = s->q[0];
            for (int i = 0; i < 3; ++i) out[i] = l > 0 ? d[i] / l * r : 0;
            return;
        }
        case MK_BOX:
            for (int i = 0; i < 3; ++i) out[i] = sgn(d[i]) * s->q[i];
            return;
        case MK_CAPSULE: {
            double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            h = s->q[0];
            r = s->q[1];
            for (int i = 0; i < 3; ++i) out[i] = l > 0 ? d[i] / l * r : 0;
            out[1] += sgn(d[1]) * h;
            return;
        }
        case MK_CYLINDER:
            h = s->q[0];
            r = s->q[1];
            rl = sqrt(d[0] * d[0] + d[2] * d[2]);
            out[0] = rl > 0 ? d[0] / rl * r : 0;
            out[1] = sgn(d[1]) * h;
            out[2] = rl > 0 ? d[2] / rl * r : 0;
            return;
        case MK_CONE: {
            h = s->q[0];
            r = s->q[1];
            rl = sqrt(d[0] * d[0] + d[2] * d[2]);
            double bx = rl > 0 ? d[0] / rl * r : 0, bz = rl > 0 ? d[2] / rl * r : 0;
            if (h * d[1] >= bx * d[0] - h * d[1] + bz * d[2]) {
                out[0] = 0;
                out[1] = h;
                out[2] = 0;
            } else {
                out[0] = bx;
                out[1] = -h;
                out[2] = bz;
            }
            return;
        }
        default: {
            int best = 0;
            double bd = -INFINITY;
            for (int i = 0; i < s->nverts; ++i) {
                const double *v = s->verts + 3 * i;
                double x = v[0] * d[0] + v[1] * d[1] + v[2] * d[2];
                if (x > bd) {
                    bd = x;
                    best = i;
                }
            }
            memcpy(out, s->verts + 3 * best, sizeof(double) * 3);
            return;
        }
    }
}

static void support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *vec) {
    const placed_t *p = (const placed_t *)obj;
    ccd_vec3_t d;
    ccdVec3Copy(&d, dir);
    ccdQuatRotVec(&d, &p->inv);
    double ld[3] = {d.v[0], d.v[1], d.v[2]}, out[3];
    local_support(p->s, ld, out);
    ccdVec3Set(vec, out[0], out[1], out[2]);
    ccdQuatRotVec(vec, &p->rot);
    ccdVec3Add(vec, &p->pos);
}

static void center(const void *obj, ccd_vec3_t *c) { ccdVec3Copy(c, &((const placed_t *)obj)->pos); }

static void place(placed_t *p, const shape_t *s, const mk_real *pose) {
    p->s = s;
    ccdVec3Set(&p->pos, pose[0], pose[1], pose[2]);
    ccdQuatSet(&p->rot, pose[3], pose[4], pose[5], pose[6]);
    ccdQuatInvert2(&p->inv, &p->rot);
}

static void setup(ccd_t *ccd) {
    CCD_INIT(ccd);
    ccd->support1 = support;
    ccd->support2 = support;
    ccd->center1 = center;
    ccd->center2 = center;
    ccd->max_iterations = 1000;
    ccd->epa_tolerance = 1e-8;
}

/* Both shapes placed and libccd set up for one query. */
static void start(placed_t *x, placed_t *y, ccd_t *ccd, const void *a, const mk_real *pa,
                  const void *b, const mk_real *pb) {
    place(x, (const shape_t *)a, pa);
    place(y, (const shape_t *)b, pb);
    setup(ccd);
}

int mk_ccd_intersect(int variant, const void *a, const mk_real *pa, const void *b,
                     const mk_real *pb, int *hit) {
    (void)variant;
    placed_t x, y;
    ccd_t ccd;
    start(&x, &y, &ccd, a, pa, b, pb);
    *hit = ccdGJKIntersect(&x, &y, &ccd) ? 1 : 0;
    return MK_ANSWERED;
}

int mk_ccd_query(int variant, int query, const void *a, const mk_real *pa, const void *b,
                 const mk_real *pb, mk_real *out) {
    (void)variant;
    if (query != MK_PENETRATION) return MK_UNSUPPORTED;
    placed_t x, y;
    ccd_t ccd;
    start(&x, &y, &ccd, a, pa, b, pb);
    ccd_real_t depth;
    ccd_vec3_t dir, pos;
    int r = ccdGJKPenetration(&x, &y, &ccd, &depth, &dir, &pos);
    if (r == -1) return MK_NO_ANSWER; /* apart: libccd has no distance to give */
    if (r != 0) return MK_NO_ANSWER;
    /* dir: unit direction to move B by depth to separate (A towards B); pos: the midpoint
     * of the deepest points. */
    out[0] = -depth;
    for (int i = 0; i < 3; ++i) {
        out[1 + i] = dir.v[i];
        out[4 + i] = pos.v[i] + dir.v[i] * depth * 0.5;
        out[7 + i] = pos.v[i] - dir.v[i] * depth * 0.5;
    }
    return MK_ANSWERED;
}
