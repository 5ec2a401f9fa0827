// C = A @ B for row-major A (M x K), B (K x N), C (M x N), any M, N, K.
//
// Register-blocked: each thread computes a 4 x 4 block of C held in four vec4 accumulators, and
// an 8 x 8-thread workgroup covers a 32 x 32 tile. K advances 4 at a time: one vec4 of A per row
// and four vec4 rows of B feed 64 multiply-adds. No workgroup memory or barriers: on SwiftShader
// (and other CPU-like adapters) barriers cost more than the reloads they save.
// Edges: rows past M are clamped for loading (their results are not stored), columns past N load
// as zero, and stores are bounds-checked, so no dimension needs to be a multiple of the tile.

// The GPU tile kernels' z forms (matmul_t*z) also take workgroups along z: each z's vec4 offsets into
// A, B and C are z * a_z, z * b_z, z * c_z, and it sums k_z vec4s of K from there (0: all of K): a
// batch of products, or the partial products of slices of K (kernels/matmul.py plans both).
struct Dims { M: u32, N: u32, K: u32, a_z: u32, b_z: u32, c_z: u32, k_z: u32, _p7: u32 }

@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read> B: array<f32>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;

fn load_b(k: u32, col: u32) -> vec4<f32> {
    let i = k * dims.N + col;
    if (col + 3u < dims.N) {
        return vec4<f32>(B[i], B[i + 1u], B[i + 2u], B[i + 3u]);
    }
    var v = vec4<f32>(0.0);
    for (var j = 0u; j < 4u; j = j + 1u) {
        if (col + j < dims.N) { v[j] = B[i + j]; }
    }
    return v;
}

fn load_a4(row: u32, k: u32) -> vec4<f32> {
    let i = row * dims.K + k;
    return vec4<f32>(A[i], A[i + 1u], A[i + 2u], A[i + 3u]);
}

fn store_row(row: u32, col: u32, v: vec4<f32>) {
    if (row >= dims.M) { return; }
    let i = row * dims.N + col;
    for (var j = 0u; j < 4u; j = j + 1u) {
        if (col + j < dims.N) { C[i + j] = v[j]; }
    }
}

const TILE: u32 = 32u;  // rows and columns of C per workgroup of `matmul`: 4 x 4 per thread

@compute @workgroup_size(TILE / 4u, TILE / 4u)
fn matmul(@builtin(global_invocation_id) gid: vec3<u32>) {
    let col = gid.x * 4u;
    let row = gid.y * 4u;
    if (row >= dims.M || col >= dims.N) { return; }
    let last = dims.M - 1u;
    let r0 = row;
    let r1 = min(row + 1u, last);
    let r2 = min(row + 2u, last);
    let r3 = min(row + 3u, last);
    var c0 = vec4<f32>(0.0);
    var c1 = vec4<f32>(0.0);
    var c2 = vec4<f32>(0.0);
    var c3 = vec4<f32>(0.0);
    var k = 0u;
    for (; k + 4u <= dims.K; k = k + 4u) {
        let b0 = load_b(k, col);
        let b1 = load_b(k + 1u, col);
        let b2 = load_b(k + 2u, col);
        let b3 = load_b(k + 3u, col);
        let a0 = load_a4(r0, k);
        let a1 = load_a4(r1, k);
        let a2 = load_a4(r2, k);
        let a3 = load_a4(r3, k);
        c0 = c0 + a0.x * b0 + a0.y * b1 + a0.z * b2 + a0.w * b3;
        c1 = c1 + a1.x * b0 + a1.y * b1 + a1.z * b2 + a1.w * b3;
        c2 = c2 + a2.x * b0 + a2.y * b1 + a2.z * b2 + a2.w * b3;
        c3 = c3 + a3.x * b0 + a3.y * b1 + a3.z * b2 + a3.w * b3;
    }
    for (; k < dims.K; k = k + 1u) {
        let b = load_b(k, col);
        c0 = c0 + A[r0 * dims.K + k] * b;
        c1 = c1 + A[r1 * dims.K + k] * b;
        c2 = c2 + A[r2 * dims.K + k] * b;
        c3 = c3 + A[r3 * dims.K + k] * b;
    }
    store_row(row, col, c0);
    store_row(row + 1u, col, c1);
    store_row(row + 2u, col, c2);
    store_row(row + 3u, col, c3);
}

// ---- matmul_tiled: for GPUs when N or K is not a multiple of 4 (else the generated matmul_t* below)
// A 16 x 16-thread workgroup computes a 64 x 64 tile of C, each thread a 4 x 4 block (rows ty*4..,
// columns tx*4..). K advances 16 at a time: the workgroup stages a 64 x 16 slice of A and a
// 16 x 64 slice of B in workgroup memory (4 + 4 loads per thread, zero past the edges), then every
// thread reads its vec4 of A rows and vec4 of B columns per k from there. Any M, N, K.
const TILE_K: u32 = 16u;
var<workgroup> tile_a: array<vec4<f32>, 256>;  // [k * 16 + row / 4]: rows as vec4 of 4 consecutive
var<workgroup> tile_b: array<vec4<f32>, 256>;  // [k * 16 + col / 4]

// Rows and columns of C per workgroup of `matmul_tiled` (pycore/programs.py reads it); the body
// below is written for 64: 16 x 16 threads of 4 x 4, slices of TILE_K = 16.
const TILED: u32 = 64u;

@compute @workgroup_size(TILED / 4u, TILED / 4u)
fn matmul_tiled(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let row0 = wid.y * TILED;
    let col0 = wid.x * TILED;
    let t = lid.y * 16u + lid.x;
    var c0 = vec4<f32>(0.0);
    var c1 = vec4<f32>(0.0);
    var c2 = vec4<f32>(0.0);
    var c3 = vec4<f32>(0.0);
    for (var k0 = 0u; k0 < dims.K; k0 = k0 + TILE_K) {
        // A slice: thread t loads rows (t / 16) * 4 .. + 3 at k = t % 16 -> one vec4 of rows.
        let kk = t % 16u;
        let ra = (t / 16u) * 4u;
        var a = vec4<f32>(0.0);
        if (k0 + kk < dims.K) {
            for (var j = 0u; j < 4u; j = j + 1u) {
                if (row0 + ra + j < dims.M) { a[j] = A[(row0 + ra + j) * dims.K + k0 + kk]; }
            }
        }
        tile_a[kk * 16u + ra / 4u] = a;
        // B slice: thread t loads columns (t % 16) * 4 .. + 3 at k = t / 16 -> one vec4.
        let kb = t / 16u;
        let cb = (t % 16u) * 4u;
        var b = vec4<f32>(0.0);
        if (k0 + kb < dims.K) {
            let base = (k0 + kb) * dims.N + col0 + cb;
            for (var j = 0u; j < 4u; j = j + 1u) {
                if (col0 + cb + j < dims.N) { b[j] = B[base + j]; }
            }
        }
        tile_b[kb * 16u + cb / 4u] = b;
        workgroupBarrier();
        for (var k = 0u; k < TILE_K; k = k + 1u) {
            let av = tile_a[k * 16u + lid.y];
            let bv = tile_b[k * 16u + lid.x];
            c0 = c0 + av.x * bv;
            c1 = c1 + av.y * bv;
            c2 = c2 + av.z * bv;
            c3 = c3 + av.w * bv;
        }
        workgroupBarrier();
    }
    let row = row0 + lid.y * 4u;
    let col = col0 + lid.x * 4u;
    store_row(row, col, c0);
    store_row(row + 1u, col, c1);
    store_row(row + 2u, col, c2);
    store_row(row + 3u, col, c3);
}

// ---- generated by scripts/matmul_wgsl.py: begin
// C = A @ B when N and K are multiples of 4, as vec4 arrays. Each thread computes 32 rows x
// 32 columns of C; a workgroup of 4 x 8 threads covers 256 rows x 128 columns.
// Rows past M are clamped for loading and never stored; so are columns past N.
@group(0) @binding(0) var<storage, read> A4: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> B4: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> C4: array<vec4<f32>>;

@compute @workgroup_size(4, 8)
fn matmul_vec4(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n4 = dims.N / 4u;
    let k4 = dims.K / 4u;
    let row = gid.y * 32u;
    let col = gid.x * 8u;
    if (row >= dims.M || col >= n4) { return; }
    let last_row = dims.M - 1u;
    let last_col = n4 - 1u;
    let ra0 = min(row + 0u, last_row) * k4;
    let ra1 = min(row + 1u, last_row) * k4;
    let ra2 = min(row + 2u, last_row) * k4;
    let ra3 = min(row + 3u, last_row) * k4;
    let ra4 = min(row + 4u, last_row) * k4;
    let ra5 = min(row + 5u, last_row) * k4;
    let ra6 = min(row + 6u, last_row) * k4;
    let ra7 = min(row + 7u, last_row) * k4;
    let ra8 = min(row + 8u, last_row) * k4;
    let ra9 = min(row + 9u, last_row) * k4;
    let ra10 = min(row + 10u, last_row) * k4;
    let ra11 = min(row + 11u, last_row) * k4;
    let ra12 = min(row + 12u, last_row) * k4;
    let ra13 = min(row + 13u, last_row) * k4;
    let ra14 = min(row + 14u, last_row) * k4;
    let ra15 = min(row + 15u, last_row) * k4;
    let ra16 = min(row + 16u, last_row) * k4;
    let ra17 = min(row + 17u, last_row) * k4;
    let ra18 = min(row + 18u, last_row) * k4;
    let ra19 = min(row + 19u, last_row) * k4;
    let ra20 = min(row + 20u, last_row) * k4;
    let ra21 = min(row + 21u, last_row) * k4;
    let ra22 = min(row + 22u, last_row) * k4;
    let ra23 = min(row + 23u, last_row) * k4;
    let ra24 = min(row + 24u, last_row) * k4;
    let ra25 = min(row + 25u, last_row) * k4;
    let ra26 = min(row + 26u, last_row) * k4;
    let ra27 = min(row + 27u, last_row) * k4;
    let ra28 = min(row + 28u, last_row) * k4;
    let ra29 = min(row + 29u, last_row) * k4;
    let ra30 = min(row + 30u, last_row) * k4;
    let ra31 = min(row + 31u, last_row) * k4;
    let cb0 = min(col + 0u, last_col);
    let cb1 = min(col + 1u, last_col);
    let cb2 = min(col + 2u, last_col);
    let cb3 = min(col + 3u, last_col);
    let cb4 = min(col + 4u, last_col);
    let cb5 = min(col + 5u, last_col);
    let cb6 = min(col + 6u, last_col);
    let cb7 = min(col + 7u, last_col);
    var c0_0 = vec4<f32>(0.0);
    var c0_1 = vec4<f32>(0.0);
    var c0_2 = vec4<f32>(0.0);
    var c0_3 = vec4<f32>(0.0);
    var c0_4 = vec4<f32>(0.0);
    var c0_5 = vec4<f32>(0.0);
    var c0_6 = vec4<f32>(0.0);
    var c0_7 = vec4<f32>(0.0);
    var c1_0 = vec4<f32>(0.0);
    var c1_1 = vec4<f32>(0.0);
    var c1_2 = vec4<f32>(0.0);
    var c1_3 = vec4<f32>(0.0);
    var c1_4 = vec4<f32>(0.0);
    var c1_5 = vec4<f32>(0.0);
    var c1_6 = vec4<f32>(0.0);
    var c1_7 = vec4<f32>(0.0);
    var c2_0 = vec4<f32>(0.0);
    var c2_1 = vec4<f32>(0.0);
    var c2_2 = vec4<f32>(0.0);
    var c2_3 = vec4<f32>(0.0);
    var c2_4 = vec4<f32>(0.0);
    var c2_5 = vec4<f32>(0.0);
    var c2_6 = vec4<f32>(0.0);
    var c2_7 = vec4<f32>(0.0);
    var c3_0 = vec4<f32>(0.0);
    var c3_1 = vec4<f32>(0.0);
    var c3_2 = vec4<f32>(0.0);
    var c3_3 = vec4<f32>(0.0);
    var c3_4 = vec4<f32>(0.0);
    var c3_5 = vec4<f32>(0.0);
    var c3_6 = vec4<f32>(0.0);
    var c3_7 = vec4<f32>(0.0);
    var c4_0 = vec4<f32>(0.0);
    var c4_1 = vec4<f32>(0.0);
    var c4_2 = vec4<f32>(0.0);
    var c4_3 = vec4<f32>(0.0);
    var c4_4 = vec4<f32>(0.0);
    var c4_5 = vec4<f32>(0.0);
    var c4_6 = vec4<f32>(0.0);
    var c4_7 = vec4<f32>(0.0);
    var c5_0 = vec4<f32>(0.0);
    var c5_1 = vec4<f32>(0.0);
    var c5_2 = vec4<f32>(0.0);
    var c5_3 = vec4<f32>(0.0);
    var c5_4 = vec4<f32>(0.0);
    var c5_5 = vec4<f32>(0.0);
    var c5_6 = vec4<f32>(0.0);
    var c5_7 = vec4<f32>(0.0);
    var c6_0 = vec4<f32>(0.0);
    var c6_1 = vec4<f32>(0.0);
    var c6_2 = vec4<f32>(0.0);
    var c6_3 = vec4<f32>(0.0);
    var c6_4 = vec4<f32>(0.0);
    var c6_5 = vec4<f32>(0.0);
    var c6_6 = vec4<f32>(0.0);
    var c6_7 = vec4<f32>(0.0);
    var c7_0 = vec4<f32>(0.0);
    var c7_1 = vec4<f32>(0.0);
    var c7_2 = vec4<f32>(0.0);
    var c7_3 = vec4<f32>(0.0);
    var c7_4 = vec4<f32>(0.0);
    var c7_5 = vec4<f32>(0.0);
    var c7_6 = vec4<f32>(0.0);
    var c7_7 = vec4<f32>(0.0);
    var c8_0 = vec4<f32>(0.0);
    var c8_1 = vec4<f32>(0.0);
    var c8_2 = vec4<f32>(0.0);
    var c8_3 = vec4<f32>(0.0);
    var c8_4 = vec4<f32>(0.0);
    var c8_5 = vec4<f32>(0.0);
    var c8_6 = vec4<f32>(0.0);
    var c8_7 = vec4<f32>(0.0);
    var c9_0 = vec4<f32>(0.0);
    var c9_1 = vec4<f32>(0.0);
    var c9_2 = vec4<f32>(0.0);
    var c9_3 = vec4<f32>(0.0);
    var c9_4 = vec4<f32>(0.0);
    var c9_5 = vec4<f32>(0.0);
    var c9_6 = vec4<f32>(0.0);
    var c9_7 = vec4<f32>(0.0);
    var c10_0 = vec4<f32>(0.0);
    var c10_1 = vec4<f32>(0.0);
    var c10_2 = vec4<f32>(0.0);
    var c10_3 = vec4<f32>(0.0);
    var c10_4 = vec4<f32>(0.0);
    var c10_5 = vec4<f32>(0.0);
    var c10_6 = vec4<f32>(0.0);
    var c10_7 = vec4<f32>(0.0);
    var c11_0 = vec4<f32>(0.0);
    var c11_1 = vec4<f32>(0.0);
    var c11_2 = vec4<f32>(0.0);
    var c11_3 = vec4<f32>(0.0);
    var c11_4 = vec4<f32>(0.0);
    var c11_5 = vec4<f32>(0.0);
    var c11_6 = vec4<f32>(0.0);
    var c11_7 = vec4<f32>(0.0);
    var c12_0 = vec4<f32>(0.0);
    var c12_1 = vec4<f32>(0.0);
    var c12_2 = vec4<f32>(0.0);
    var c12_3 = vec4<f32>(0.0);
    var c12_4 = vec4<f32>(0.0);
    var c12_5 = vec4<f32>(0.0);
    var c12_6 = vec4<f32>(0.0);
    var c12_7 = vec4<f32>(0.0);
    var c13_0 = vec4<f32>(0.0);
    var c13_1 = vec4<f32>(0.0);
    var c13_2 = vec4<f32>(0.0);
    var c13_3 = vec4<f32>(0.0);
    var c13_4 = vec4<f32>(0.0);
    var c13_5 = vec4<f32>(0.0);
    var c13_6 = vec4<f32>(0.0);
    var c13_7 = vec4<f32>(0.0);
    var c14_0 = vec4<f32>(0.0);
    var c14_1 = vec4<f32>(0.0);
    var c14_2 = vec4<f32>(0.0);
    var c14_3 = vec4<f32>(0.0);
    var c14_4 = vec4<f32>(0.0);
    var c14_5 = vec4<f32>(0.0);
    var c14_6 = vec4<f32>(0.0);
    var c14_7 = vec4<f32>(0.0);
    var c15_0 = vec4<f32>(0.0);
    var c15_1 = vec4<f32>(0.0);
    var c15_2 = vec4<f32>(0.0);
    var c15_3 = vec4<f32>(0.0);
    var c15_4 = vec4<f32>(0.0);
    var c15_5 = vec4<f32>(0.0);
    var c15_6 = vec4<f32>(0.0);
    var c15_7 = vec4<f32>(0.0);
    var c16_0 = vec4<f32>(0.0);
    var c16_1 = vec4<f32>(0.0);
    var c16_2 = vec4<f32>(0.0);
    var c16_3 = vec4<f32>(0.0);
    var c16_4 = vec4<f32>(0.0);
    var c16_5 = vec4<f32>(0.0);
    var c16_6 = vec4<f32>(0.0);
    var c16_7 = vec4<f32>(0.0);
    var c17_0 = vec4<f32>(0.0);
    var c17_1 = vec4<f32>(0.0);
    var c17_2 = vec4<f32>(0.0);
    var c17_3 = vec4<f32>(0.0);
    var c17_4 = vec4<f32>(0.0);
    var c17_5 = vec4<f32>(0.0);
    var c17_6 = vec4<f32>(0.0);
    var c17_7 = vec4<f32>(0.0);
    var c18_0 = vec4<f32>(0.0);
    var c18_1 = vec4<f32>(0.0);
    var c18_2 = vec4<f32>(0.0);
    var c18_3 = vec4<f32>(0.0);
    var c18_4 = vec4<f32>(0.0);
    var c18_5 = vec4<f32>(0.0);
    var c18_6 = vec4<f32>(0.0);
    var c18_7 = vec4<f32>(0.0);
    var c19_0 = vec4<f32>(0.0);
    var c19_1 = vec4<f32>(0.0);
    var c19_2 = vec4<f32>(0.0);
    var c19_3 = vec4<f32>(0.0);
    var c19_4 = vec4<f32>(0.0);
    var c19_5 = vec4<f32>(0.0);
    var c19_6 = vec4<f32>(0.0);
    var c19_7 = vec4<f32>(0.0);
    var c20_0 = vec4<f32>(0.0);
    var c20_1 = vec4<f32>(0.0);
    var c20_2 = vec4<f32>(0.0);
    var c20_3 = vec4<f32>(0.0);
    var c20_4 = vec4<f32>(0.0);
    var c20_5 = vec4<f32>(0.0);
    var c20_6 = vec4<f32>(0.0);
    var c20_7 = vec4<f32>(0.0);
    var c21_0 = vec4<f32>(0.0);
    var c21_1 = vec4<f32>(0.0);
    var c21_2 = vec4<f32>(0.0);
    var c21_3 = vec4<f32>(0.0);
    var c21_4 = vec4<f32>(0.0);
    var c21_5 = vec4<f32>(0.0);
    var c21_6 = vec4<f32>(0.0);
    var c21_7 = vec4<f32>(0.0);
    var c22_0 = vec4<f32>(0.0);
    var c22_1 = vec4<f32>(0.0);
    var c22_2 = vec4<f32>(0.0);
    var c22_3 = vec4<f32>(0.0);
    var c22_4 = vec4<f32>(0.0);
    var c22_5 = vec4<f32>(0.0);
    var c22_6 = vec4<f32>(0.0);
    var c22_7 = vec4<f32>(0.0);
    var c23_0 = vec4<f32>(0.0);
    var c23_1 = vec4<f32>(0.0);
    var c23_2 = vec4<f32>(0.0);
    var c23_3 = vec4<f32>(0.0);
    var c23_4 = vec4<f32>(0.0);
    var c23_5 = vec4<f32>(0.0);
    var c23_6 = vec4<f32>(0.0);
    var c23_7 = vec4<f32>(0.0);
    var c24_0 = vec4<f32>(0.0);
    var c24_1 = vec4<f32>(0.0);
    var c24_2 = vec4<f32>(0.0);
    var c24_3 = vec4<f32>(0.0);
    var c24_4 = vec4<f32>(0.0);
    var c24_5 = vec4<f32>(0.0);
    var c24_6 = vec4<f32>(0.0);
    var c24_7 = vec4<f32>(0.0);
    var c25_0 = vec4<f32>(0.0);
    var c25_1 = vec4<f32>(0.0);
    var c25_2 = vec4<f32>(0.0);
    var c25_3 = vec4<f32>(0.0);
    var c25_4 = vec4<f32>(0.0);
    var c25_5 = vec4<f32>(0.0);
    var c25_6 = vec4<f32>(0.0);
    var c25_7 = vec4<f32>(0.0);
    var c26_0 = vec4<f32>(0.0);
    var c26_1 = vec4<f32>(0.0);
    var c26_2 = vec4<f32>(0.0);
    var c26_3 = vec4<f32>(0.0);
    var c26_4 = vec4<f32>(0.0);
    var c26_5 = vec4<f32>(0.0);
    var c26_6 = vec4<f32>(0.0);
    var c26_7 = vec4<f32>(0.0);
    var c27_0 = vec4<f32>(0.0);
    var c27_1 = vec4<f32>(0.0);
    var c27_2 = vec4<f32>(0.0);
    var c27_3 = vec4<f32>(0.0);
    var c27_4 = vec4<f32>(0.0);
    var c27_5 = vec4<f32>(0.0);
    var c27_6 = vec4<f32>(0.0);
    var c27_7 = vec4<f32>(0.0);
    var c28_0 = vec4<f32>(0.0);
    var c28_1 = vec4<f32>(0.0);
    var c28_2 = vec4<f32>(0.0);
    var c28_3 = vec4<f32>(0.0);
    var c28_4 = vec4<f32>(0.0);
    var c28_5 = vec4<f32>(0.0);
    var c28_6 = vec4<f32>(0.0);
    var c28_7 = vec4<f32>(0.0);
    var c29_0 = vec4<f32>(0.0);
    var c29_1 = vec4<f32>(0.0);
    var c29_2 = vec4<f32>(0.0);
    var c29_3 = vec4<f32>(0.0);
    var c29_4 = vec4<f32>(0.0);
    var c29_5 = vec4<f32>(0.0);
    var c29_6 = vec4<f32>(0.0);
    var c29_7 = vec4<f32>(0.0);
    var c30_0 = vec4<f32>(0.0);
    var c30_1 = vec4<f32>(0.0);
    var c30_2 = vec4<f32>(0.0);
    var c30_3 = vec4<f32>(0.0);
    var c30_4 = vec4<f32>(0.0);
    var c30_5 = vec4<f32>(0.0);
    var c30_6 = vec4<f32>(0.0);
    var c30_7 = vec4<f32>(0.0);
    var c31_0 = vec4<f32>(0.0);
    var c31_1 = vec4<f32>(0.0);
    var c31_2 = vec4<f32>(0.0);
    var c31_3 = vec4<f32>(0.0);
    var c31_4 = vec4<f32>(0.0);
    var c31_5 = vec4<f32>(0.0);
    var c31_6 = vec4<f32>(0.0);
    var c31_7 = vec4<f32>(0.0);
    for (var k = 0u; k < k4; k = k + 1u) {
        let o = 4u * k * n4;
        let b0_0 = B4[o + 0u * n4 + cb0];
        let b0_1 = B4[o + 1u * n4 + cb0];
        let b0_2 = B4[o + 2u * n4 + cb0];
        let b0_3 = B4[o + 3u * n4 + cb0];
        let b1_0 = B4[o + 0u * n4 + cb1];
        let b1_1 = B4[o + 1u * n4 + cb1];
        let b1_2 = B4[o + 2u * n4 + cb1];
        let b1_3 = B4[o + 3u * n4 + cb1];
        let b2_0 = B4[o + 0u * n4 + cb2];
        let b2_1 = B4[o + 1u * n4 + cb2];
        let b2_2 = B4[o + 2u * n4 + cb2];
        let b2_3 = B4[o + 3u * n4 + cb2];
        let b3_0 = B4[o + 0u * n4 + cb3];
        let b3_1 = B4[o + 1u * n4 + cb3];
        let b3_2 = B4[o + 2u * n4 + cb3];
        let b3_3 = B4[o + 3u * n4 + cb3];
        let b4_0 = B4[o + 0u * n4 + cb4];
        let b4_1 = B4[o + 1u * n4 + cb4];
        let b4_2 = B4[o + 2u * n4 + cb4];
        let b4_3 = B4[o + 3u * n4 + cb4];
        let b5_0 = B4[o + 0u * n4 + cb5];
        let b5_1 = B4[o + 1u * n4 + cb5];
        let b5_2 = B4[o + 2u * n4 + cb5];
        let b5_3 = B4[o + 3u * n4 + cb5];
        let b6_0 = B4[o + 0u * n4 + cb6];
        let b6_1 = B4[o + 1u * n4 + cb6];
        let b6_2 = B4[o + 2u * n4 + cb6];
        let b6_3 = B4[o + 3u * n4 + cb6];
        let b7_0 = B4[o + 0u * n4 + cb7];
        let b7_1 = B4[o + 1u * n4 + cb7];
        let b7_2 = B4[o + 2u * n4 + cb7];
        let b7_3 = B4[o + 3u * n4 + cb7];
        let a0 = A4[ra0 + k];
        c0_0 = c0_0 + a0.x * b0_0 + a0.y * b0_1 + a0.z * b0_2 + a0.w * b0_3;
        c0_1 = c0_1 + a0.x * b1_0 + a0.y * b1_1 + a0.z * b1_2 + a0.w * b1_3;
        c0_2 = c0_2 + a0.x * b2_0 + a0.y * b2_1 + a0.z * b2_2 + a0.w * b2_3;
        c0_3 = c0_3 + a0.x * b3_0 + a0.y * b3_1 + a0.z * b3_2 + a0.w * b3_3;
        c0_4 = c0_4 + a0.x * b4_0 + a0.y * b4_1 + a0.z * b4_2 + a0.w * b4_3;
        c0_5 = c0_5 + a0.x * b5_0 + a0.y * b5_1 + a0.z * b5_2 + a0.w * b5_3;
        c0_6 = c0_6 + a0.x * b6_0 + a0.y * b6_1 + a0.z * b6_2 + a0.w * b6_3;
        c0_7 = c0_7 + a0.x * b7_0 + a0.y * b7_1 + a0.z * b7_2 + a0.w * b7_3;
        let a1 = A4[ra1 + k];
        c1_0 = c1_0 + a1.x * b0_0 + a1.y * b0_1 + a1.z * b0_2 + a1.w * b0_3;
        c1_1 = c1_1 + a1.x * b1_0 + a1.y * b1_1 + a1.z * b1_2 + a1.w * b1_3;
        c1_2 = c1_2 + a1.x * b2_0 + a1.y * b2_1 + a1.z * b2_2 + a1.w * b2_3;
        c1_3 = c1_3 + a1.x * b3_0 + a1.y * b3_1 + a1.z * b3_2 + a1.w * b3_3;
        c1_4 = c1_4 + a1.x * b4_0 + a1.y * b4_1 + a1.z * b4_2 + a1.w * b4_3;
        c1_5 = c1_5 + a1.x * b5_0 + a1.y * b5_1 + a1.z * b5_2 + a1.w * b5_3;
        c1_6 = c1_6 + a1.x * b6_0 + a1.y * b6_1 + a1.z * b6_2 + a1.w * b6_3;
        c1_7 = c1_7 + a1.x * b7_0 + a1.y * b7_1 + a1.z * b7_2 + a1.w * b7_3;
        let a2 = A4[ra2 + k];
        c2_0 = c2_0 + a2.x * b0_0 + a2.y * b0_1 + a2.z * b0_2 + a2.w * b0_3;
        c2_1 = c2_1 + a2.x * b1_0 + a2.y * b1_1 + a2.z * b1_2 + a2.w * b1_3;
        c2_2 = c2_2 + a2.x * b2_0 + a2.y * b2_1 + a2.z * b2_2 + a2.w * b2_3;
        c2_3 = c2_3 + a2.x * b3_0 + a2.y * b3_1 + a2.z * b3_2 + a2.w * b3_3;
        c2_4 = c2_4 + a2.x * b4_0 + a2.y * b4_1 + a2.z * b4_2 + a2.w * b4_3;
        c2_5 = c2_5 + a2.x * b5_0 + a2.y * b5_1 + a2.z * b5_2 + a2.w * b5_3;
        c2_6 = c2_6 + a2.x * b6_0 + a2.y * b6_1 + a2.z * b6_2 + a2.w * b6_3;
        c2_7 = c2_7 + a2.x * b7_0 + a2.y * b7_1 + a2.z * b7_2 + a2.w * b7_3;
        let a3 = A4[ra3 + k];
        c3_0 = c3_0 + a3.x * b0_0 + a3.y * b0_1 + a3.z * b0_2 + a3.w * b0_3;
        c3_1 = c3_1 + a3.x * b1_0 + a3.y * b1_1 + a3.z * b1_2 + a3.w * b1_3;
        c3_2 = c3_2 + a3.x * b2_0 + a3.y * b2_1 + a3.z * b2_2 + a3.w * b2_3;
        c3_3 = c3_3 + a3.x * b3_0 + a3.y * b3_1 + a3.z * b3_2 + a3.w * b3_3;
        c3_4 = c3_4 + a3.x * b4_0 + a3.y * b4_1 + a3.z * b4_2 + a3.w * b4_3;
        c3_5 = c3_5 + a3.x * b5_0 + a3.y * b5_1 + a3.z * b5_2 + a3.w * b5_3;
        c3_6 = c3_6 + a3.x * b6_0 + a3.y * b6_1 + a3.z * b6_2 + a3.w * b6_3;
        c3_7 = c3_7 + a3.x * b7_0 + a3.y * b7_1 + a3.z * b7_2 + a3.w * b7_3;
        let a4 = A4[ra4 + k];
        c4_0 = c4_0 + a4.x * b0_0 + a4.y * b0_1 + a4.z * b0_2 + a4.w * b0_3;
        c4_1 = c4_1 + a4.x * b1_0 + a4.y * b1_1 + a4.z * b1_2 + a4.w * b1_3;
        c4_2 = c4_2 + a4.x * b2_0 + a4.y * b2_1 + a4.z * b2_2 + a4.w * b2_3;
        c4_3 = c4_3 + a4.x * b3_0 + a4.y * b3_1 + a4.z * b3_2 + a4.w * b3_3;
        c4_4 = c4_4 + a4.x * b4_0 + a4.y * b4_1 + a4.z * b4_2 + a4.w * b4_3;
        c4_5 = c4_5 + a4.x * b5_0 + a4.y * b5_1 + a4.z * b5_2 + a4.w * b5_3;
        c4_6 = c4_6 + a4.x * b6_0 + a4.y * b6_1 + a4.z * b6_2 + a4.w * b6_3;
        c4_7 = c4_7 + a4.x * b7_0 + a4.y * b7_1 + a4.z * b7_2 + a4.w * b7_3;
        let a5 = A4[ra5 + k];
        c5_0 = c5_0 + a5.x * b0_0 + a5.y * b0_1 + a5.z * b0_2 + a5.w * b0_3;
        c5_1 = c5_1 + a5.x * b1_0 + a5.y * b1_1 + a5.z * b1_2 + a5.w * b1_3;
        c5_2 = c5_2 + a5.x * b2_0 + a5.y * b2_1 + a5.z * b2_2 + a5.w * b2_3;
        c5_3 = c5_3 + a5.x * b3_0 + a5.y * b3_1 + a5.z * b3_2 + a5.w * b3_3;
        c5_4 = c5_4 + a5.x * b4_0 + a5.y * b4_1 + a5.z * b4_2 + a5.w * b4_3;
        c5_5 = c5_5 + a5.x * b5_0 + a5.y * b5_1 + a5.z * b5_2 + a5.w * b5_3;
        c5_6 = c5_6 + a5.x * b6_0 + a5.y * b6_1 + a5.z * b6_2 + a5.w * b6_3;
        c5_7 = c5_7 + a5.x * b7_0 + a5.y * b7_1 + a5.z * b7_2 + a5.w * b7_3;
        let a6 = A4[ra6 + k];
        c6_0 = c6_0 + a6.x * b0_0 + a6.y * b0_1 + a6.z * b0_2 + a6.w * b0_3;
        c6_1 = c6_1 + a6.x * b1_0 + a6.y * b1_1 + a6.z * b1_2 + a6.w * b1_3;
        c6_2 = c6_2 + a6.x * b2_0 + a6.y * b2_1 + a6.z * b2_2 + a6.w * b2_3;
        c6_3 = c6_3 + a6.x * b3_0 + a6.y * b3_1 + a6.z * b3_2 + a6.w * b3_3;
        c6_4 = c6_4 + a6.x * b4_0 + a6.y * b4_1 + a6.z * b4_2 + a6.w * b4_3;
        c6_5 = c6_5 + a6.x * b5_0 + a6.y * b5_1 + a6.z * b5_2 + a6.w * b5_3;
        c6_6 = c6_6 + a6.x * b6_0 + a6.y * b6_1 + a6.z * b6_2 + a6.w * b6_3;
        c6_7 = c6_7 + a6.x * b7_0 + a6.y * b7_1 + a6.z * b7_2 + a6.w * b7_3;
        let a7 = A4[ra7 + k];
        c7_0 = c7_0 + a7.x * b0_0 + a7.y * b0_1 + a7.z * b0_2 + a7.w * b0_3;
        c7_1 = c7_1 + a7.x * b1_0 + a7.y * b1_1 + a7.z * b1_2 + a7.w * b1_3;
        c7_2 = c7_2 + a7.x * b2_0 + a7.y * b2_1 + a7.z * b2_2 + a7.w * b2_3;
        c7_3 = c7_3 + a7.x * b3_0 + a7.y * b3_1 + a7.z * b3_2 + a7.w * b3_3;
        c7_4 = c7_4 + a7.x * b4_0 + a7.y * b4_1 + a7.z * b4_2 + a7.w * b4_3;
        c7_5 = c7_5 + a7.x * b5_0 + a7.y * b5_1 + a7.z * b5_2 + a7.w * b5_3;
        c7_6 = c7_6 + a7.x * b6_0 + a7.y * b6_1 + a7.z * b6_2 + a7.w * b6_3;
        c7_7 = c7_7 + a7.x * b7_0 + a7.y * b7_1 + a7.z * b7_2 + a7.w * b7_3;
        let a8 = A4[ra8 + k];
        c8_0 = c8_0 + a8.x * b0_0 + a8.y * b0_1 + a8.z * b0_2 + a8.w * b0_3;
        c8_1 = c8_1 + a8.x * b1_0 + a8.y * b1_1 + a8.z * b1_2 + a8.w * b1_3;
        c8_2 = c8_2 + a8.x * b2_0 + a8.y * b2_1 + a8.z * b2_2 + a8.w * b2_3;
        c8_3 = c8_3 + a8.x * b3_0 + a8.y * b3_1 + a8.z * b3_2 + a8.w * b3_3;
        c8_4 = c8_4 + a8.x * b4_0 + a8.y * b4_1 + a8.z * b4_2 + a8.w * b4_3;
        c8_5 = c8_5 + a8.x * b5_0 + a8.y * b5_1 + a8.z * b5_2 + a8.w * b5_3;
        c8_6 = c8_6 + a8.x * b6_0 + a8.y * b6_1 + a8.z * b6_2 + a8.w * b6_3;
        c8_7 = c8_7 + a8.x * b7_0 + a8.y * b7_1 + a8.z * b7_2 + a8.w * b7_3;
        let a9 = A4[ra9 + k];
        c9_0 = c9_0 + a9.x * b0_0 + a9.y * b0_1 + a9.z * b0_2 + a9.w * b0_3;
        c9_1 = c9_1 + a9.x * b1_0 + a9.y * b1_1 + a9.z * b1_2 + a9.w * b1_3;
        c9_2 = c9_2 + a9.x * b2_0 + a9.y * b2_1 + a9.z * b2_2 + a9.w * b2_3;
        c9_3 = c9_3 + a9.x * b3_0 + a9.y * b3_1 + a9.z * b3_2 + a9.w * b3_3;
        c9_4 = c9_4 + a9.x * b4_0 + a9.y * b4_1 + a9.z * b4_2 + a9.w * b4_3;
        c9_5 = c9_5 + a9.x * b5_0 + a9.y * b5_1 + a9.z * b5_2 + a9.w * b5_3;
        c9_6 = c9_6 + a9.x * b6_0 + a9.y * b6_1 + a9.z * b6_2 + a9.w * b6_3;
        c9_7 = c9_7 + a9.x * b7_0 + a9.y * b7_1 + a9.z * b7_2 + a9.w * b7_3;
        let a10 = A4[ra10 + k];
        c10_0 = c10_0 + a10.x * b0_0 + a10.y * b0_1 + a10.z * b0_2 + a10.w * b0_3;
        c10_1 = c10_1 + a10.x * b1_0 + a10.y * b1_1 + a10.z * b1_2 + a10.w * b1_3;
        c10_2 = c10_2 + a10.x * b2_0 + a10.y * b2_1 + a10.z * b2_2 + a10.w * b2_3;
        c10_3 = c10_3 + a10.x * b3_0 + a10.y * b3_1 + a10.z * b3_2 + a10.w * b3_3;
        c10_4 = c10_4 + a10.x * b4_0 + a10.y * b4_1 + a10.z * b4_2 + a10.w * b4_3;
        c10_5 = c10_5 + a10.x * b5_0 + a10.y * b5_1 + a10.z * b5_2 + a10.w * b5_3;
        c10_6 = c10_6 + a10.x * b6_0 + a10.y * b6_1 + a10.z * b6_2 + a10.w * b6_3;
        c10_7 = c10_7 + a10.x * b7_0 + a10.y * b7_1 + a10.z * b7_2 + a10.w * b7_3;
        let a11 = A4[ra11 + k];
        c11_0 = c11_0 + a11.x * b0_0 + a11.y * b0_1 + a11.z * b0_2 + a11.w * b0_3;
        c11_1 = c11_1 + a11.x * b1_0 + a11.y * b1_1 + a11.z * b1_2 + a11.w * b1_3;
        c11_2 = c11_2 + a11.x * b2_0 + a11.y * b2_1 + a11.z * b2_2 + a11.w * b2_3;
        c11_3 = c11_3 + a11.x * b3_0 + a11.y * b3_1 + a11.z * b3_2 + a11.w * b3_3;
        c11_4 = c11_4 + a11.x * b4_0 + a11.y * b4_1 + a11.z * b4_2 + a11.w * b4_3;
        c11_5 = c11_5 + a11.x * b5_0 + a11.y * b5_1 + a11.z * b5_2 + a11.w * b5_3;
        c11_6 = c11_6 + a11.x * b6_0 + a11.y * b6_1 + a11.z * b6_2 + a11.w * b6_3;
        c11_7 = c11_7 + a11.x * b7_0 + a11.y * b7_1 + a11.z * b7_2 + a11.w * b7_3;
        let a12 = A4[ra12 + k];
        c12_0 = c12_0 + a12.x * b0_0 + a12.y * b0_1 + a12.z * b0_2 + a12.w * b0_3;
        c12_1 = c12_1 + a12.x * b1_0 + a12.y * b1_1 + a12.z * b1_2 + a12.w * b1_3;
        c12_2 = c12_2 + a12.x * b2_0 + a12.y * b2_1 + a12.z * b2_2 + a12.w * b2_3;
        c12_3 = c12_3 + a12.x * b3_0 + a12.y * b3_1 + a12.z * b3_2 + a12.w * b3_3;
        c12_4 = c12_4 + a12.x * b4_0 + a12.y * b4_1 + a12.z * b4_2 + a12.w * b4_3;
        c12_5 = c12_5 + a12.x * b5_0 + a12.y * b5_1 + a12.z * b5_2 + a12.w * b5_3;
        c12_6 = c12_6 + a12.x * b6_0 + a12.y * b6_1 + a12.z * b6_2 + a12.w * b6_3;
        c12_7 = c12_7 + a12.x * b7_0 + a12.y * b7_1 + a12.z * b7_2 + a12.w * b7_3;
        let a13 = A4[ra13 + k];
        c13_0 = c13_0 + a13.x * b0_0 + a13.y * b0_1 + a13.z * b0_2 + a13.w * b0_3;
        c13_1 = c13_1 + a13.x * b1_0 + a13.y * b1_1 + a13.z * b1_2 + a13.w * b1_3;
        c13_2 = c13_2 + a13.x * b2_0 + a13.y * b2_1 + a13.z * b2_2 + a13.w * b2_3;
        c13_3 = c13_3 + a13.x * b3_0 + a13.y * b3_1 + a13.z * b3_2 + a13.w * b3_3;
        c13_4 = c13_4 + a13.x * b4_0 + a13.y * b4_1 + a13.z * b4_2 + a13.w * b4_3;
        c13_5 = c13_5 + a13.x * b5_0 + a13.y * b5_1 + a13.z * b5_2 + a13.w * b5_3;
        c13_6 = c13_6 + a13.x * b6_0 + a13.y * b6_1 + a13.z * b6_2 + a13.w * b6_3;
        c13_7 = c13_7 + a13.x * b7_0 + a13.y * b7_1 + a13.z * b7_2 + a13.w * b7_3;
        let a14 = A4[ra14 + k];
        c14_0 = c14_0 + a14.x * b0_0 + a14.y * b0_1 + a14.z * b0_2 + a14.w * b0_3;
        c14_1 = c14_1 + a14.x * b1_0 + a14.y * b1_1 + a14.z * b1_2 + a14.w * b1_3;
        c14_2 = c14_2 + a14.x * b2_0 + a14.y * b2_1 + a14.z * b2_2 + a14.w * b2_3;
        c14_3 = c14_3 + a14.x * b3_0 + a14.y * b3_1 + a14.z * b3_2 + a14.w * b3_3;
        c14_4 = c14_4 + a14.x * b4_0 + a14.y * b4_1 + a14.z * b4_2 + a14.w * b4_3;
        c14_5 = c14_5 + a14.x * b5_0 + a14.y * b5_1 + a14.z * b5_2 + a14.w * b5_3;
        c14_6 = c14_6 + a14.x * b6_0 + a14.y * b6_1 + a14.z * b6_2 + a14.w * b6_3;
        c14_7 = c14_7 + a14.x * b7_0 + a14.y * b7_1 + a14.z * b7_2 + a14.w * b7_3;
        let a15 = A4[ra15 + k];
        c15_0 = c15_0 + a15.x * b0_0 + a15.y * b0_1 + a15.z * b0_2 + a15.w * b0_3;
        c15_1 = c15_1 + a15.x * b1_0 + a15.y * b1_1 + a15.z * b1_2 + a15.w * b1_3;
        c15_2 = c15_2 + a15.x * b2_0 + a15.y * b2_1 + a15.z * b2_2 + a15.w * b2_3;
        c15_3 = c15_3 + a15.x * b3_0 + a15.y * b3_1 + a15.z * b3_2 + a15.w * b3_3;
        c15_4 = c15_4 + a15.x * b4_0 + a15.y * b4_1 + a15.z * b4_2 + a15.w * b4_3;
        c15_5 = c15_5 + a15.x * b5_0 + a15.y * b5_1 + a15.z * b5_2 + a15.w * b5_3;
        c15_6 = c15_6 + a15.x * b6_0 + a15.y * b6_1 + a15.z * b6_2 + a15.w * b6_3;
        c15_7 = c15_7 + a15.x * b7_0 + a15.y * b7_1 + a15.z * b7_2 + a15.w * b7_3;
        let a16 = A4[ra16 + k];
        c16_0 = c16_0 + a16.x * b0_0 + a16.y * b0_1 + a16.z * b0_2 + a16.w * b0_3;
        c16_1 = c16_1 + a16.x * b1_0 + a16.y * b1_1 + a16.z * b1_2 + a16.w * b1_3;
        c16_2 = c16_2 + a16.x * b2_0 + a16.y * b2_1 + a16.z * b2_2 + a16.w * b2_3;
        c16_3 = c16_3 + a16.x * b3_0 + a16.y * b3_1 + a16.z * b3_2 + a16.w * b3_3;
        c16_4 = c16_4 + a16.x * b4_0 + a16.y * b4_1 + a16.z * b4_2 + a16.w * b4_3;
        c16_5 = c16_5 + a16.x * b5_0 + a16.y * b5_1 + a16.z * b5_2 + a16.w * b5_3;
        c16_6 = c16_6 + a16.x * b6_0 + a16.y * b6_1 + a16.z * b6_2 + a16.w * b6_3;
        c16_7 = c16_7 + a16.x * b7_0 + a16.y * b7_1 + a16.z * b7_2 + a16.w * b7_3;
        let a17 = A4[ra17 + k];
        c17_0 = c17_0 + a17.x * b0_0 + a17.y * b0_1 + a17.z * b0_2 + a17.w * b0_3;
        c17_1 = c17_1 + a17.x * b1_0 + a17.y * b1_1 + a17.z * b1_2 + a17.w * b1_3;
        c17_2 = c17_2 + a17.x * b2_0 + a17.y * b2_1 + a17.z * b2_2 + a17.w * b2_3;
        c17_3 = c17_3 + a17.x * b3_0 + a17.y * b3_1 + a17.z * b3_2 + a17.w * b3_3;
        c17_4 = c17_4 + a17.x * b4_0 + a17.y * b4_1 + a17.z * b4_2 + a17.w * b4_3;
        c17_5 = c17_5 + a17.x * b5_0 + a17.y * b5_1 + a17.z * b5_2 + a17.w * b5_3;
        c17_6 = c17_6 + a17.x * b6_0 + a17.y * b6_1 + a17.z * b6_2 + a17.w * b6_3;
        c17_7 = c17_7 + a17.x * b7_0 + a17.y * b7_1 + a17.z * b7_2 + a17.w * b7_3;
        let a18 = A4[ra18 + k];
        c18_0 = c18_0 + a18.x * b0_0 + a18.y * b0_1 + a18.z * b0_2 + a18.w * b0_3;
        c18_1 = c18_1 + a18.x * b1_0 + a18.y * b1_1 + a18.z * b1_2 + a18.w * b1_3;
        c18_2 = c18_2 + a18.x * b2_0 + a18.y * b2_1 + a18.z * b2_2 + a18.w * b2_3;
        c18_3 = c18_3 + a18.x * b3_0 + a18.y * b3_1 + a18.z * b3_2 + a18.w * b3_3;
        c18_4 = c18_4 + a18.x * b4_0 + a18.y * b4_1 + a18.z * b4_2 + a18.w * b4_3;
        c18_5 = c18_5 + a18.x * b5_0 + a18.y * b5_1 + a18.z * b5_2 + a18.w * b5_3;
        c18_6 = c18_6 + a18.x * b6_0 + a18.y * b6_1 + a18.z * b6_2 + a18.w * b6_3;
        c18_7 = c18_7 + a18.x * b7_0 + a18.y * b7_1 + a18.z * b7_2 + a18.w * b7_3;
        let a19 = A4[ra19 + k];
        c19_0 = c19_0 + a19.x * b0_0 + a19.y * b0_1 + a19.z * b0_2 + a19.w * b0_3;
        c19_1 = c19_1 + a19.x * b1_0 + a19.y * b1_1 + a19.z * b1_2 + a19.w * b1_3;
        c19_2 = c19_2 + a19.x * b2_0 + a19.y * b2_1 + a19.z * b2_2 + a19.w * b2_3;
        c19_3 = c19_3 + a19.x * b3_0 + a19.y * b3_1 + a19.z * b3_2 + a19.w * b3_3;
        c19_4 = c19_4 + a19.x * b4_0 + a19.y * b4_1 + a19.z * b4_2 + a19.w * b4_3;
        c19_5 = c19_5 + a19.x * b5_0 + a19.y * b5_1 + a19.z * b5_2 + a19.w * b5_3;
        c19_6 = c19_6 + a19.x * b6_0 + a19.y * b6_1 + a19.z * b6_2 + a19.w * b6_3;
        c19_7 = c19_7 + a19.x * b7_0 + a19.y * b7_1 + a19.z * b7_2 + a19.w * b7_3;
        let a20 = A4[ra20 + k];
        c20_0 = c20_0 + a20.x * b0_0 + a20.y * b0_1 + a20.z * b0_2 + a20.w * b0_3;
        c20_1 = c20_1 + a20.x * b1_0 + a20.y * b1_1 + a20.z * b1_2 + a20.w * b1_3;
        c20_2 = c20_2 + a20.x * b2_0 + a20.y * b2_1 + a20.z * b2_2 + a20.w * b2_3;
        c20_3 = c20_3 + a20.x * b3_0 + a20.y * b3_1 + a20.z * b3_2 + a20.w * b3_3;
        c20_4 = c20_4 + a20.x * b4_0 + a20.y * b4_1 + a20.z * b4_2 + a20.w * b4_3;
        c20_5 = c20_5 + a20.x * b5_0 + a20.y * b5_1 + a20.z * b5_2 + a20.w * b5_3;
        c20_6 = c20_6 + a20.x * b6_0 + a20.y * b6_1 + a20.z * b6_2 + a20.w * b6_3;
        c20_7 = c20_7 + a20.x * b7_0 + a20.y * b7_1 + a20.z * b7_2 + a20.w * b7_3;
        let a21 = A4[ra21 + k];
        c21_0 = c21_0 + a21.x * b0_0 + a21.y * b0_1 + a21.z * b0_2 + a21.w * b0_3;
        c21_1 = c21_1 + a21.x * b1_0 + a21.y * b1_1 + a21.z * b1_2 + a21.w * b1_3;
        c21_2 = c21_2 + a21.x * b2_0 + a21.y * b2_1 + a21.z * b2_2 + a21.w * b2_3;
        c21_3 = c21_3 + a21.x * b3_0 + a21.y * b3_1 + a21.z * b3_2 + a21.w * b3_3;
        c21_4 = c21_4 + a21.x * b4_0 + a21.y * b4_1 + a21.z * b4_2 + a21.w * b4_3;
        c21_5 = c21_5 + a21.x * b5_0 + a21.y * b5_1 + a21.z * b5_2 + a21.w * b5_3;
        c21_6 = c21_6 + a21.x * b6_0 + a21.y * b6_1 + a21.z * b6_2 + a21.w * b6_3;
        c21_7 = c21_7 + a21.x * b7_0 + a21.y * b7_1 + a21.z * b7_2 + a21.w * b7_3;
        let a22 = A4[ra22 + k];
        c22_0 = c22_0 + a22.x * b0_0 + a22.y * b0_1 + a22.z * b0_2 + a22.w * b0_3;
        c22_1 = c22_1 + a22.x * b1_0 + a22.y * b1_1 + a22.z * b1_2 + a22.w * b1_3;
        c22_2 = c22_2 + a22.x * b2_0 + a22.y * b2_1 + a22.z * b2_2 + a22.w * b2_3;
        c22_3 = c22_3 + a22.x * b3_0 + a22.y * b3_1 + a22.z * b3_2 + a22.w * b3_3;
        c22_4 = c22_4 + a22.x * b4_0 + a22.y * b4_1 + a22.z * b4_2 + a22.w * b4_3;
        c22_5 = c22_5 + a22.x * b5_0 + a22.y * b5_1 + a22.z * b5_2 + a22.w * b5_3;
        c22_6 = c22_6 + a22.x * b6_0 + a22.y * b6_1 + a22.z * b6_2 + a22.w * b6_3;
        c22_7 = c22_7 + a22.x * b7_0 + a22.y * b7_1 + a22.z * b7_2 + a22.w * b7_3;
        let a23 = A4[ra23 + k];
        c23_0 = c23_0 + a23.x * b0_0 + a23.y * b0_1 + a23.z * b0_2 + a23.w * b0_3;
        c23_1 = c23_1 + a23.x * b1_0 + a23.y * b1_1 + a23.z * b1_2 + a23.w * b1_3;
        c23_2 = c23_2 + a23.x * b2_0 + a23.y * b2_1 + a23.z * b2_2 + a23.w * b2_3;
        c23_3 = c23_3 + a23.x * b3_0 + a23.y * b3_1 + a23.z * b3_2 + a23.w * b3_3;
        c23_4 = c23_4 + a23.x * b4_0 + a23.y * b4_1 + a23.z * b4_2 + a23.w * b4_3;
        c23_5 = c23_5 + a23.x * b5_0 + a23.y * b5_1 + a23.z * b5_2 + a23.w * b5_3;
        c23_6 = c23_6 + a23.x * b6_0 + a23.y * b6_1 + a23.z * b6_2 + a23.w * b6_3;
        c23_7 = c23_7 + a23.x * b7_0 + a23.y * b7_1 + a23.z * b7_2 + a23.w * b7_3;
        let a24 = A4[ra24 + k];
        c24_0 = c24_0 + a24.x * b0_0 + a24.y * b0_1 + a24.z * b0_2 + a24.w * b0_3;
        c24_1 = c24_1 + a24.x * b1_0 + a24.y * b1_1 + a24.z * b1_2 + a24.w * b1_3;
        c24_2 = c24_2 + a24.x * b2_0 + a24.y * b2_1 + a24.z * b2_2 + a24.w * b2_3;
        c24_3 = c24_3 + a24.x * b3_0 + a24.y * b3_1 + a24.z * b3_2 + a24.w * b3_3;
        c24_4 = c24_4 + a24.x * b4_0 + a24.y * b4_1 + a24.z * b4_2 + a24.w * b4_3;
        c24_5 = c24_5 + a24.x * b5_0 + a24.y * b5_1 + a24.z * b5_2 + a24.w * b5_3;
        c24_6 = c24_6 + a24.x * b6_0 + a24.y * b6_1 + a24.z * b6_2 + a24.w * b6_3;
        c24_7 = c24_7 + a24.x * b7_0 + a24.y * b7_1 + a24.z * b7_2 + a24.w * b7_3;
        let a25 = A4[ra25 + k];
        c25_0 = c25_0 + a25.x * b0_0 + a25.y * b0_1 + a25.z * b0_2 + a25.w * b0_3;
        c25_1 = c25_1 + a25.x * b1_0 + a25.y * b1_1 + a25.z * b1_2 + a25.w * b1_3;
        c25_2 = c25_2 + a25.x * b2_0 + a25.y * b2_1 + a25.z * b2_2 + a25.w * b2_3;
        c25_3 = c25_3 + a25.x * b3_0 + a25.y * b3_1 + a25.z * b3_2 + a25.w * b3_3;
        c25_4 = c25_4 + a25.x * b4_0 + a25.y * b4_1 + a25.z * b4_2 + a25.w * b4_3;
        c25_5 = c25_5 + a25.x * b5_0 + a25.y * b5_1 + a25.z * b5_2 + a25.w * b5_3;
        c25_6 = c25_6 + a25.x * b6_0 + a25.y * b6_1 + a25.z * b6_2 + a25.w * b6_3;
        c25_7 = c25_7 + a25.x * b7_0 + a25.y * b7_1 + a25.z * b7_2 + a25.w * b7_3;
        let a26 = A4[ra26 + k];
        c26_0 = c26_0 + a26.x * b0_0 + a26.y * b0_1 + a26.z * b0_2 + a26.w * b0_3;
        c26_1 = c26_1 + a26.x * b1_0 + a26.y * b1_1 + a26.z * b1_2 + a26.w * b1_3;
        c26_2 = c26_2 + a26.x * b2_0 + a26.y * b2_1 + a26.z * b2_2 + a26.w * b2_3;
        c26_3 = c26_3 + a26.x * b3_0 + a26.y * b3_1 + a26.z * b3_2 + a26.w * b3_3;
        c26_4 = c26_4 + a26.x * b4_0 + a26.y * b4_1 + a26.z * b4_2 + a26.w * b4_3;
        c26_5 = c26_5 + a26.x * b5_0 + a26.y * b5_1 + a26.z * b5_2 + a26.w * b5_3;
        c26_6 = c26_6 + a26.x * b6_0 + a26.y * b6_1 + a26.z * b6_2 + a26.w * b6_3;
        c26_7 = c26_7 + a26.x * b7_0 + a26.y * b7_1 + a26.z * b7_2 + a26.w * b7_3;
        let a27 = A4[ra27 + k];
        c27_0 = c27_0 + a27.x * b0_0 + a27.y * b0_1 + a27.z * b0_2 + a27.w * b0_3;
        c27_1 = c27_1 + a27.x * b1_0 + a27.y * b1_1 + a27.z * b1_2 + a27.w * b1_3;
        c27_2 = c27_2 + a27.x * b2_0 + a27.y * b2_1 + a27.z * b2_2 + a27.w * b2_3;
        c27_3 = c27_3 + a27.x * b3_0 + a27.y * b3_1 + a27.z * b3_2 + a27.w * b3_3;
        c27_4 = c27_4 + a27.x * b4_0 + a27.y * b4_1 + a27.z * b4_2 + a27.w * b4_3;
        c27_5 = c27_5 + a27.x * b5_0 + a27.y * b5_1 + a27.z * b5_2 + a27.w * b5_3;
        c27_6 = c27_6 + a27.x * b6_0 + a27.y * b6_1 + a27.z * b6_2 + a27.w * b6_3;
        c27_7 = c27_7 + a27.x * b7_0 + a27.y * b7_1 + a27.z * b7_2 + a27.w * b7_3;
        let a28 = A4[ra28 + k];
        c28_0 = c28_0 + a28.x * b0_0 + a28.y * b0_1 + a28.z * b0_2 + a28.w * b0_3;
        c28_1 = c28_1 + a28.x * b1_0 + a28.y * b1_1 + a28.z * b1_2 + a28.w * b1_3;
        c28_2 = c28_2 + a28.x * b2_0 + a28.y * b2_1 + a28.z * b2_2 + a28.w * b2_3;
        c28_3 = c28_3 + a28.x * b3_0 + a28.y * b3_1 + a28.z * b3_2 + a28.w * b3_3;
        c28_4 = c28_4 + a28.x * b4_0 + a28.y * b4_1 + a28.z * b4_2 + a28.w * b4_3;
        c28_5 = c28_5 + a28.x * b5_0 + a28.y * b5_1 + a28.z * b5_2 + a28.w * b5_3;
        c28_6 = c28_6 + a28.x * b6_0 + a28.y * b6_1 + a28.z * b6_2 + a28.w * b6_3;
        c28_7 = c28_7 + a28.x * b7_0 + a28.y * b7_1 + a28.z * b7_2 + a28.w * b7_3;
        let a29 = A4[ra29 + k];
        c29_0 = c29_0 + a29.x * b0_0 + a29.y * b0_1 + a29.z * b0_2 + a29.w * b0_3;
        c29_1 = c29_1 + a29.x * b1_0 + a29.y * b1_1 + a29.z * b1_2 + a29.w * b1_3;
        c29_2 = c29_2 + a29.x * b2_0 + a29.y * b2_1 + a29.z * b2_2 + a29.w * b2_3;
        c29_3 = c29_3 + a29.x * b3_0 + a29.y * b3_1 + a29.z * b3_2 + a29.w * b3_3;
        c29_4 = c29_4 + a29.x * b4_0 + a29.y * b4_1 + a29.z * b4_2 + a29.w * b4_3;
        c29_5 = c29_5 + a29.x * b5_0 + a29.y * b5_1 + a29.z * b5_2 + a29.w * b5_3;
        c29_6 = c29_6 + a29.x * b6_0 + a29.y * b6_1 + a29.z * b6_2 + a29.w * b6_3;
        c29_7 = c29_7 + a29.x * b7_0 + a29.y * b7_1 + a29.z * b7_2 + a29.w * b7_3;
        let a30 = A4[ra30 + k];
        c30_0 = c30_0 + a30.x * b0_0 + a30.y * b0_1 + a30.z * b0_2 + a30.w * b0_3;
        c30_1 = c30_1 + a30.x * b1_0 + a30.y * b1_1 + a30.z * b1_2 + a30.w * b1_3;
        c30_2 = c30_2 + a30.x * b2_0 + a30.y * b2_1 + a30.z * b2_2 + a30.w * b2_3;
        c30_3 = c30_3 + a30.x * b3_0 + a30.y * b3_1 + a30.z * b3_2 + a30.w * b3_3;
        c30_4 = c30_4 + a30.x * b4_0 + a30.y * b4_1 + a30.z * b4_2 + a30.w * b4_3;
        c30_5 = c30_5 + a30.x * b5_0 + a30.y * b5_1 + a30.z * b5_2 + a30.w * b5_3;
        c30_6 = c30_6 + a30.x * b6_0 + a30.y * b6_1 + a30.z * b6_2 + a30.w * b6_3;
        c30_7 = c30_7 + a30.x * b7_0 + a30.y * b7_1 + a30.z * b7_2 + a30.w * b7_3;
        let a31 = A4[ra31 + k];
        c31_0 = c31_0 + a31.x * b0_0 + a31.y * b0_1 + a31.z * b0_2 + a31.w * b0_3;
        c31_1 = c31_1 + a31.x * b1_0 + a31.y * b1_1 + a31.z * b1_2 + a31.w * b1_3;
        c31_2 = c31_2 + a31.x * b2_0 + a31.y * b2_1 + a31.z * b2_2 + a31.w * b2_3;
        c31_3 = c31_3 + a31.x * b3_0 + a31.y * b3_1 + a31.z * b3_2 + a31.w * b3_3;
        c31_4 = c31_4 + a31.x * b4_0 + a31.y * b4_1 + a31.z * b4_2 + a31.w * b4_3;
        c31_5 = c31_5 + a31.x * b5_0 + a31.y * b5_1 + a31.z * b5_2 + a31.w * b5_3;
        c31_6 = c31_6 + a31.x * b6_0 + a31.y * b6_1 + a31.z * b6_2 + a31.w * b6_3;
        c31_7 = c31_7 + a31.x * b7_0 + a31.y * b7_1 + a31.z * b7_2 + a31.w * b7_3;
    }
    if (row + 0u < dims.M) {
        if (col + 0u < n4) { C4[(row + 0u) * n4 + col + 0u] = c0_0; }
        if (col + 1u < n4) { C4[(row + 0u) * n4 + col + 1u] = c0_1; }
        if (col + 2u < n4) { C4[(row + 0u) * n4 + col + 2u] = c0_2; }
        if (col + 3u < n4) { C4[(row + 0u) * n4 + col + 3u] = c0_3; }
        if (col + 4u < n4) { C4[(row + 0u) * n4 + col + 4u] = c0_4; }
        if (col + 5u < n4) { C4[(row + 0u) * n4 + col + 5u] = c0_5; }
        if (col + 6u < n4) { C4[(row + 0u) * n4 + col + 6u] = c0_6; }
        if (col + 7u < n4) { C4[(row + 0u) * n4 + col + 7u] = c0_7; }
    }
    if (row + 1u < dims.M) {
        if (col + 0u < n4) { C4[(row + 1u) * n4 + col + 0u] = c1_0; }
        if (col + 1u < n4) { C4[(row + 1u) * n4 + col + 1u] = c1_1; }
        if (col + 2u < n4) { C4[(row + 1u) * n4 + col + 2u] = c1_2; }
        if (col + 3u < n4) { C4[(row + 1u) * n4 + col + 3u] = c1_3; }
        if (col + 4u < n4) { C4[(row + 1u) * n4 + col + 4u] = c1_4; }
        if (col + 5u < n4) { C4[(row + 1u) * n4 + col + 5u] = c1_5; }
        if (col + 6u < n4) { C4[(row + 1u) * n4 + col + 6u] = c1_6; }
        if (col + 7u < n4) { C4[(row + 1u) * n4 + col + 7u] = c1_7; }
    }
    if (row + 2u < dims.M) {
        if (col + 0u < n4) { C4[(row + 2u) * n4 + col + 0u] = c2_0; }
        if (col + 1u < n4) { C4[(row + 2u) * n4 + col + 1u] = c2_1; }
        if (col + 2u < n4) { C4[(row + 2u) * n4 + col + 2u] = c2_2; }
        if (col + 3u < n4) { C4[(row + 2u) * n4 + col + 3u] = c2_3; }
        if (col + 4u < n4) { C4[(row + 2u) * n4 + col + 4u] = c2_4; }
        if (col + 5u < n4) { C4[(row + 2u) * n4 + col + 5u] = c2_5; }
        if (col + 6u < n4) { C4[(row + 2u) * n4 + col + 6u] = c2_6; }
        if (col + 7u < n4) { C4[(row + 2u) * n4 + col + 7u] = c2_7; }
    }
    if (row + 3u < dims.M) {
        if (col + 0u < n4) { C4[(row + 3u) * n4 + col + 0u] = c3_0; }
        if (col + 1u < n4) { C4[(row + 3u) * n4 + col + 1u] = c3_1; }
        if (col + 2u < n4) { C4[(row + 3u) * n4 + col + 2u] = c3_2; }
        if (col + 3u < n4) { C4[(row + 3u) * n4 + col + 3u] = c3_3; }
        if (col + 4u < n4) { C4[(row + 3u) * n4 + col + 4u] = c3_4; }
        if (col + 5u < n4) { C4[(row + 3u) * n4 + col + 5u] = c3_5; }
        if (col + 6u < n4) { C4[(row + 3u) * n4 + col + 6u] = c3_6; }
        if (col + 7u < n4) { C4[(row + 3u) * n4 + col + 7u] = c3_7; }
    }
    if (row + 4u < dims.M) {
        if (col + 0u < n4) { C4[(row + 4u) * n4 + col + 0u] = c4_0; }
        if (col + 1u < n4) { C4[(row + 4u) * n4 + col + 1u] = c4_1; }
        if (col + 2u < n4) { C4[(row + 4u) * n4 + col + 2u] = c4_2; }
        if (col + 3u < n4) { C4[(row + 4u) * n4 + col + 3u] = c4_3; }
        if (col + 4u < n4) { C4[(row + 4u) * n4 + col + 4u] = c4_4; }
        if (col + 5u < n4) { C4[(row + 4u) * n4 + col + 5u] = c4_5; }
        if (col + 6u < n4) { C4[(row + 4u) * n4 + col + 6u] = c4_6; }
        if (col + 7u < n4) { C4[(row + 4u) * n4 + col + 7u] = c4_7; }
    }
    if (row + 5u < dims.M) {
        if (col + 0u < n4) { C4[(row + 5u) * n4 + col + 0u] = c5_0; }
        if (col + 1u < n4) { C4[(row + 5u) * n4 + col + 1u] = c5_1; }
        if (col + 2u < n4) { C4[(row + 5u) * n4 + col + 2u] = c5_2; }
        if (col + 3u < n4) { C4[(row + 5u) * n4 + col + 3u] = c5_3; }
        if (col + 4u < n4) { C4[(row + 5u) * n4 + col + 4u] = c5_4; }
        if (col + 5u < n4) { C4[(row + 5u) * n4 + col + 5u] = c5_5; }
        if (col + 6u < n4) { C4[(row + 5u) * n4 + col + 6u] = c5_6; }
        if (col + 7u < n4) { C4[(row + 5u) * n4 + col + 7u] = c5_7; }
    }
    if (row + 6u < dims.M) {
        if (col + 0u < n4) { C4[(row + 6u) * n4 + col + 0u] = c6_0; }
        if (col + 1u < n4) { C4[(row + 6u) * n4 + col + 1u] = c6_1; }
        if (col + 2u < n4) { C4[(row + 6u) * n4 + col + 2u] = c6_2; }
        if (col + 3u < n4) { C4[(row + 6u) * n4 + col + 3u] = c6_3; }
        if (col + 4u < n4) { C4[(row + 6u) * n4 + col + 4u] = c6_4; }
        if (col + 5u < n4) { C4[(row + 6u) * n4 + col + 5u] = c6_5; }
        if (col + 6u < n4) { C4[(row + 6u) * n4 + col + 6u] = c6_6; }
        if (col + 7u < n4) { C4[(row + 6u) * n4 + col + 7u] = c6_7; }
    }
    if (row + 7u < dims.M) {
        if (col + 0u < n4) { C4[(row + 7u) * n4 + col + 0u] = c7_0; }
        if (col + 1u < n4) { C4[(row + 7u) * n4 + col + 1u] = c7_1; }
        if (col + 2u < n4) { C4[(row + 7u) * n4 + col + 2u] = c7_2; }
        if (col + 3u < n4) { C4[(row + 7u) * n4 + col + 3u] = c7_3; }
        if (col + 4u < n4) { C4[(row + 7u) * n4 + col + 4u] = c7_4; }
        if (col + 5u < n4) { C4[(row + 7u) * n4 + col + 5u] = c7_5; }
        if (col + 6u < n4) { C4[(row + 7u) * n4 + col + 6u] = c7_6; }
        if (col + 7u < n4) { C4[(row + 7u) * n4 + col + 7u] = c7_7; }
    }
    if (row + 8u < dims.M) {
        if (col + 0u < n4) { C4[(row + 8u) * n4 + col + 0u] = c8_0; }
        if (col + 1u < n4) { C4[(row + 8u) * n4 + col + 1u] = c8_1; }
        if (col + 2u < n4) { C4[(row + 8u) * n4 + col + 2u] = c8_2; }
        if (col + 3u < n4) { C4[(row + 8u) * n4 + col + 3u] = c8_3; }
        if (col + 4u < n4) { C4[(row + 8u) * n4 + col + 4u] = c8_4; }
        if (col + 5u < n4) { C4[(row + 8u) * n4 + col + 5u] = c8_5; }
        if (col + 6u < n4) { C4[(row + 8u) * n4 + col + 6u] = c8_6; }
        if (col + 7u < n4) { C4[(row + 8u) * n4 + col + 7u] = c8_7; }
    }
    if (row + 9u < dims.M) {
        if (col + 0u < n4) { C4[(row + 9u) * n4 + col + 0u] = c9_0; }
        if (col + 1u < n4) { C4[(row + 9u) * n4 + col + 1u] = c9_1; }
        if (col + 2u < n4) { C4[(row + 9u) * n4 + col + 2u] = c9_2; }
        if (col + 3u < n4) { C4[(row + 9u) * n4 + col + 3u] = c9_3; }
        if (col + 4u < n4) { C4[(row + 9u) * n4 + col + 4u] = c9_4; }
        if (col + 5u < n4) { C4[(row + 9u) * n4 + col + 5u] = c9_5; }
        if (col + 6u < n4) { C4[(row + 9u) * n4 + col + 6u] = c9_6; }
        if (col + 7u < n4) { C4[(row + 9u) * n4 + col + 7u] = c9_7; }
    }
    if (row + 10u < dims.M) {
        if (col + 0u < n4) { C4[(row + 10u) * n4 + col + 0u] = c10_0; }
        if (col + 1u < n4) { C4[(row + 10u) * n4 + col + 1u] = c10_1; }
        if (col + 2u < n4) { C4[(row + 10u) * n4 + col + 2u] = c10_2; }
        if (col + 3u < n4) { C4[(row + 10u) * n4 + col + 3u] = c10_3; }
        if (col + 4u < n4) { C4[(row + 10u) * n4 + col + 4u] = c10_4; }
        if (col + 5u < n4) { C4[(row + 10u) * n4 + col + 5u] = c10_5; }
        if (col + 6u < n4) { C4[(row + 10u) * n4 + col + 6u] = c10_6; }
        if (col + 7u < n4) { C4[(row + 10u) * n4 + col + 7u] = c10_7; }
    }
    if (row + 11u < dims.M) {
        if (col + 0u < n4) { C4[(row + 11u) * n4 + col + 0u] = c11_0; }
        if (col + 1u < n4) { C4[(row + 11u) * n4 + col + 1u] = c11_1; }
        if (col + 2u < n4) { C4[(row + 11u) * n4 + col + 2u] = c11_2; }
        if (col + 3u < n4) { C4[(row + 11u) * n4 + col + 3u] = c11_3; }
        if (col + 4u < n4) { C4[(row + 11u) * n4 + col + 4u] = c11_4; }
        if (col + 5u < n4) { C4[(row + 11u) * n4 + col + 5u] = c11_5; }
        if (col + 6u < n4) { C4[(row + 11u) * n4 + col + 6u] = c11_6; }
        if (col + 7u < n4) { C4[(row + 11u) * n4 + col + 7u] = c11_7; }
    }
    if (row + 12u < dims.M) {
        if (col + 0u < n4) { C4[(row + 12u) * n4 + col + 0u] = c12_0; }
        if (col + 1u < n4) { C4[(row + 12u) * n4 + col + 1u] = c12_1; }
        if (col + 2u < n4) { C4[(row + 12u) * n4 + col + 2u] = c12_2; }
        if (col + 3u < n4) { C4[(row + 12u) * n4 + col + 3u] = c12_3; }
        if (col + 4u < n4) { C4[(row + 12u) * n4 + col + 4u] = c12_4; }
        if (col + 5u < n4) { C4[(row + 12u) * n4 + col + 5u] = c12_5; }
        if (col + 6u < n4) { C4[(row + 12u) * n4 + col + 6u] = c12_6; }
        if (col + 7u < n4) { C4[(row + 12u) * n4 + col + 7u] = c12_7; }
    }
    if (row + 13u < dims.M) {
        if (col + 0u < n4) { C4[(row + 13u) * n4 + col + 0u] = c13_0; }
        if (col + 1u < n4) { C4[(row + 13u) * n4 + col + 1u] = c13_1; }
        if (col + 2u < n4) { C4[(row + 13u) * n4 + col + 2u] = c13_2; }
        if (col + 3u < n4) { C4[(row + 13u) * n4 + col + 3u] = c13_3; }
        if (col + 4u < n4) { C4[(row + 13u) * n4 + col + 4u] = c13_4; }
        if (col + 5u < n4) { C4[(row + 13u) * n4 + col + 5u] = c13_5; }
        if (col + 6u < n4) { C4[(row + 13u) * n4 + col + 6u] = c13_6; }
        if (col + 7u < n4) { C4[(row + 13u) * n4 + col + 7u] = c13_7; }
    }
    if (row + 14u < dims.M) {
        if (col + 0u < n4) { C4[(row + 14u) * n4 + col + 0u] = c14_0; }
        if (col + 1u < n4) { C4[(row + 14u) * n4 + col + 1u] = c14_1; }
        if (col + 2u < n4) { C4[(row + 14u) * n4 + col + 2u] = c14_2; }
        if (col + 3u < n4) { C4[(row + 14u) * n4 + col + 3u] = c14_3; }
        if (col + 4u < n4) { C4[(row + 14u) * n4 + col + 4u] = c14_4; }
        if (col + 5u < n4) { C4[(row + 14u) * n4 + col + 5u] = c14_5; }
        if (col + 6u < n4) { C4[(row + 14u) * n4 + col + 6u] = c14_6; }
        if (col + 7u < n4) { C4[(row + 14u) * n4 + col + 7u] = c14_7; }
    }
    if (row + 15u < dims.M) {
        if (col + 0u < n4) { C4[(row + 15u) * n4 + col + 0u] = c15_0; }
        if (col + 1u < n4) { C4[(row + 15u) * n4 + col + 1u] = c15_1; }
        if (col + 2u < n4) { C4[(row + 15u) * n4 + col + 2u] = c15_2; }
        if (col + 3u < n4) { C4[(row + 15u) * n4 + col + 3u] = c15_3; }
        if (col + 4u < n4) { C4[(row + 15u) * n4 + col + 4u] = c15_4; }
        if (col + 5u < n4) { C4[(row + 15u) * n4 + col + 5u] = c15_5; }
        if (col + 6u < n4) { C4[(row + 15u) * n4 + col + 6u] = c15_6; }
        if (col + 7u < n4) { C4[(row + 15u) * n4 + col + 7u] = c15_7; }
    }
    if (row + 16u < dims.M) {
        if (col + 0u < n4) { C4[(row + 16u) * n4 + col + 0u] = c16_0; }
        if (col + 1u < n4) { C4[(row + 16u) * n4 + col + 1u] = c16_1; }
        if (col + 2u < n4) { C4[(row + 16u) * n4 + col + 2u] = c16_2; }
        if (col + 3u < n4) { C4[(row + 16u) * n4 + col + 3u] = c16_3; }
        if (col + 4u < n4) { C4[(row + 16u) * n4 + col + 4u] = c16_4; }
        if (col + 5u < n4) { C4[(row + 16u) * n4 + col + 5u] = c16_5; }
        if (col + 6u < n4) { C4[(row + 16u) * n4 + col + 6u] = c16_6; }
        if (col + 7u < n4) { C4[(row + 16u) * n4 + col + 7u] = c16_7; }
    }
    if (row + 17u < dims.M) {
        if (col + 0u < n4) { C4[(row + 17u) * n4 + col + 0u] = c17_0; }
        if (col + 1u < n4) { C4[(row + 17u) * n4 + col + 1u] = c17_1; }
        if (col + 2u < n4) { C4[(row + 17u) * n4 + col + 2u] = c17_2; }
        if (col + 3u < n4) { C4[(row + 17u) * n4 + col + 3u] = c17_3; }
        if (col + 4u < n4) { C4[(row + 17u) * n4 + col + 4u] = c17_4; }
        if (col + 5u < n4) { C4[(row + 17u) * n4 + col + 5u] = c17_5; }
        if (col + 6u < n4) { C4[(row + 17u) * n4 + col + 6u] = c17_6; }
        if (col + 7u < n4) { C4[(row + 17u) * n4 + col + 7u] = c17_7; }
    }
    if (row + 18u < dims.M) {
        if (col + 0u < n4) { C4[(row + 18u) * n4 + col + 0u] = c18_0; }
        if (col + 1u < n4) { C4[(row + 18u) * n4 + col + 1u] = c18_1; }
        if (col + 2u < n4) { C4[(row + 18u) * n4 + col + 2u] = c18_2; }
        if (col + 3u < n4) { C4[(row + 18u) * n4 + col + 3u] = c18_3; }
        if (col + 4u < n4) { C4[(row + 18u) * n4 + col + 4u] = c18_4; }
        if (col + 5u < n4) { C4[(row + 18u) * n4 + col + 5u] = c18_5; }
        if (col + 6u < n4) { C4[(row + 18u) * n4 + col + 6u] = c18_6; }
        if (col + 7u < n4) { C4[(row + 18u) * n4 + col + 7u] = c18_7; }
    }
    if (row + 19u < dims.M) {
        if (col + 0u < n4) { C4[(row + 19u) * n4 + col + 0u] = c19_0; }
        if (col + 1u < n4) { C4[(row + 19u) * n4 + col + 1u] = c19_1; }
        if (col + 2u < n4) { C4[(row + 19u) * n4 + col + 2u] = c19_2; }
        if (col + 3u < n4) { C4[(row + 19u) * n4 + col + 3u] = c19_3; }
        if (col + 4u < n4) { C4[(row + 19u) * n4 + col + 4u] = c19_4; }
        if (col + 5u < n4) { C4[(row + 19u) * n4 + col + 5u] = c19_5; }
        if (col + 6u < n4) { C4[(row + 19u) * n4 + col + 6u] = c19_6; }
        if (col + 7u < n4) { C4[(row + 19u) * n4 + col + 7u] = c19_7; }
    }
    if (row + 20u < dims.M) {
        if (col + 0u < n4) { C4[(row + 20u) * n4 + col + 0u] = c20_0; }
        if (col + 1u < n4) { C4[(row + 20u) * n4 + col + 1u] = c20_1; }
        if (col + 2u < n4) { C4[(row + 20u) * n4 + col + 2u] = c20_2; }
        if (col + 3u < n4) { C4[(row + 20u) * n4 + col + 3u] = c20_3; }
        if (col + 4u < n4) { C4[(row + 20u) * n4 + col + 4u] = c20_4; }
        if (col + 5u < n4) { C4[(row + 20u) * n4 + col + 5u] = c20_5; }
        if (col + 6u < n4) { C4[(row + 20u) * n4 + col + 6u] = c20_6; }
        if (col + 7u < n4) { C4[(row + 20u) * n4 + col + 7u] = c20_7; }
    }
    if (row + 21u < dims.M) {
        if (col + 0u < n4) { C4[(row + 21u) * n4 + col + 0u] = c21_0; }
        if (col + 1u < n4) { C4[(row + 21u) * n4 + col + 1u] = c21_1; }
        if (col + 2u < n4) { C4[(row + 21u) * n4 + col + 2u] = c21_2; }
        if (col + 3u < n4) { C4[(row + 21u) * n4 + col + 3u] = c21_3; }
        if (col + 4u < n4) { C4[(row + 21u) * n4 + col + 4u] = c21_4; }
        if (col + 5u < n4) { C4[(row + 21u) * n4 + col + 5u] = c21_5; }
        if (col + 6u < n4) { C4[(row + 21u) * n4 + col + 6u] = c21_6; }
        if (col + 7u < n4) { C4[(row + 21u) * n4 + col + 7u] = c21_7; }
    }
    if (row + 22u < dims.M) {
        if (col + 0u < n4) { C4[(row + 22u) * n4 + col + 0u] = c22_0; }
        if (col + 1u < n4) { C4[(row + 22u) * n4 + col + 1u] = c22_1; }
        if (col + 2u < n4) { C4[(row + 22u) * n4 + col + 2u] = c22_2; }
        if (col + 3u < n4) { C4[(row + 22u) * n4 + col + 3u] = c22_3; }
        if (col + 4u < n4) { C4[(row + 22u) * n4 + col + 4u] = c22_4; }
        if (col + 5u < n4) { C4[(row + 22u) * n4 + col + 5u] = c22_5; }
        if (col + 6u < n4) { C4[(row + 22u) * n4 + col + 6u] = c22_6; }
        if (col + 7u < n4) { C4[(row + 22u) * n4 + col + 7u] = c22_7; }
    }
    if (row + 23u < dims.M) {
        if (col + 0u < n4) { C4[(row + 23u) * n4 + col + 0u] = c23_0; }
        if (col + 1u < n4) { C4[(row + 23u) * n4 + col + 1u] = c23_1; }
        if (col + 2u < n4) { C4[(row + 23u) * n4 + col + 2u] = c23_2; }
        if (col + 3u < n4) { C4[(row + 23u) * n4 + col + 3u] = c23_3; }
        if (col + 4u < n4) { C4[(row + 23u) * n4 + col + 4u] = c23_4; }
        if (col + 5u < n4) { C4[(row + 23u) * n4 + col + 5u] = c23_5; }
        if (col + 6u < n4) { C4[(row + 23u) * n4 + col + 6u] = c23_6; }
        if (col + 7u < n4) { C4[(row + 23u) * n4 + col + 7u] = c23_7; }
    }
    if (row + 24u < dims.M) {
        if (col + 0u < n4) { C4[(row + 24u) * n4 + col + 0u] = c24_0; }
        if (col + 1u < n4) { C4[(row + 24u) * n4 + col + 1u] = c24_1; }
        if (col + 2u < n4) { C4[(row + 24u) * n4 + col + 2u] = c24_2; }
        if (col + 3u < n4) { C4[(row + 24u) * n4 + col + 3u] = c24_3; }
        if (col + 4u < n4) { C4[(row + 24u) * n4 + col + 4u] = c24_4; }
        if (col + 5u < n4) { C4[(row + 24u) * n4 + col + 5u] = c24_5; }
        if (col + 6u < n4) { C4[(row + 24u) * n4 + col + 6u] = c24_6; }
        if (col + 7u < n4) { C4[(row + 24u) * n4 + col + 7u] = c24_7; }
    }
    if (row + 25u < dims.M) {
        if (col + 0u < n4) { C4[(row + 25u) * n4 + col + 0u] = c25_0; }
        if (col + 1u < n4) { C4[(row + 25u) * n4 + col + 1u] = c25_1; }
        if (col + 2u < n4) { C4[(row + 25u) * n4 + col + 2u] = c25_2; }
        if (col + 3u < n4) { C4[(row + 25u) * n4 + col + 3u] = c25_3; }
        if (col + 4u < n4) { C4[(row + 25u) * n4 + col + 4u] = c25_4; }
        if (col + 5u < n4) { C4[(row + 25u) * n4 + col + 5u] = c25_5; }
        if (col + 6u < n4) { C4[(row + 25u) * n4 + col + 6u] = c25_6; }
        if (col + 7u < n4) { C4[(row + 25u) * n4 + col + 7u] = c25_7; }
    }
    if (row + 26u < dims.M) {
        if (col + 0u < n4) { C4[(row + 26u) * n4 + col + 0u] = c26_0; }
        if (col + 1u < n4) { C4[(row + 26u) * n4 + col + 1u] = c26_1; }
        if (col + 2u < n4) { C4[(row + 26u) * n4 + col + 2u] = c26_2; }
        if (col + 3u < n4) { C4[(row + 26u) * n4 + col + 3u] = c26_3; }
        if (col + 4u < n4) { C4[(row + 26u) * n4 + col + 4u] = c26_4; }
        if (col + 5u < n4) { C4[(row + 26u) * n4 + col + 5u] = c26_5; }
        if (col + 6u < n4) { C4[(row + 26u) * n4 + col + 6u] = c26_6; }
        if (col + 7u < n4) { C4[(row + 26u) * n4 + col + 7u] = c26_7; }
    }
    if (row + 27u < dims.M) {
        if (col + 0u < n4) { C4[(row + 27u) * n4 + col + 0u] = c27_0; }
        if (col + 1u < n4) { C4[(row + 27u) * n4 + col + 1u] = c27_1; }
        if (col + 2u < n4) { C4[(row + 27u) * n4 + col + 2u] = c27_2; }
        if (col + 3u < n4) { C4[(row + 27u) * n4 + col + 3u] = c27_3; }
        if (col + 4u < n4) { C4[(row + 27u) * n4 + col + 4u] = c27_4; }
        if (col + 5u < n4) { C4[(row + 27u) * n4 + col + 5u] = c27_5; }
        if (col + 6u < n4) { C4[(row + 27u) * n4 + col + 6u] = c27_6; }
        if (col + 7u < n4) { C4[(row + 27u) * n4 + col + 7u] = c27_7; }
    }
    if (row + 28u < dims.M) {
        if (col + 0u < n4) { C4[(row + 28u) * n4 + col + 0u] = c28_0; }
        if (col + 1u < n4) { C4[(row + 28u) * n4 + col + 1u] = c28_1; }
        if (col + 2u < n4) { C4[(row + 28u) * n4 + col + 2u] = c28_2; }
        if (col + 3u < n4) { C4[(row + 28u) * n4 + col + 3u] = c28_3; }
        if (col + 4u < n4) { C4[(row + 28u) * n4 + col + 4u] = c28_4; }
        if (col + 5u < n4) { C4[(row + 28u) * n4 + col + 5u] = c28_5; }
        if (col + 6u < n4) { C4[(row + 28u) * n4 + col + 6u] = c28_6; }
        if (col + 7u < n4) { C4[(row + 28u) * n4 + col + 7u] = c28_7; }
    }
    if (row + 29u < dims.M) {
        if (col + 0u < n4) { C4[(row + 29u) * n4 + col + 0u] = c29_0; }
        if (col + 1u < n4) { C4[(row + 29u) * n4 + col + 1u] = c29_1; }
        if (col + 2u < n4) { C4[(row + 29u) * n4 + col + 2u] = c29_2; }
        if (col + 3u < n4) { C4[(row + 29u) * n4 + col + 3u] = c29_3; }
        if (col + 4u < n4) { C4[(row + 29u) * n4 + col + 4u] = c29_4; }
        if (col + 5u < n4) { C4[(row + 29u) * n4 + col + 5u] = c29_5; }
        if (col + 6u < n4) { C4[(row + 29u) * n4 + col + 6u] = c29_6; }
        if (col + 7u < n4) { C4[(row + 29u) * n4 + col + 7u] = c29_7; }
    }
    if (row + 30u < dims.M) {
        if (col + 0u < n4) { C4[(row + 30u) * n4 + col + 0u] = c30_0; }
        if (col + 1u < n4) { C4[(row + 30u) * n4 + col + 1u] = c30_1; }
        if (col + 2u < n4) { C4[(row + 30u) * n4 + col + 2u] = c30_2; }
        if (col + 3u < n4) { C4[(row + 30u) * n4 + col + 3u] = c30_3; }
        if (col + 4u < n4) { C4[(row + 30u) * n4 + col + 4u] = c30_4; }
        if (col + 5u < n4) { C4[(row + 30u) * n4 + col + 5u] = c30_5; }
        if (col + 6u < n4) { C4[(row + 30u) * n4 + col + 6u] = c30_6; }
        if (col + 7u < n4) { C4[(row + 30u) * n4 + col + 7u] = c30_7; }
    }
    if (row + 31u < dims.M) {
        if (col + 0u < n4) { C4[(row + 31u) * n4 + col + 0u] = c31_0; }
        if (col + 1u < n4) { C4[(row + 31u) * n4 + col + 1u] = c31_1; }
        if (col + 2u < n4) { C4[(row + 31u) * n4 + col + 2u] = c31_2; }
        if (col + 3u < n4) { C4[(row + 31u) * n4 + col + 3u] = c31_3; }
        if (col + 4u < n4) { C4[(row + 31u) * n4 + col + 4u] = c31_4; }
        if (col + 5u < n4) { C4[(row + 31u) * n4 + col + 5u] = c31_5; }
        if (col + 6u < n4) { C4[(row + 31u) * n4 + col + 6u] = c31_6; }
        if (col + 7u < n4) { C4[(row + 31u) * n4 + col + 7u] = c31_7; }
    }
}

// C = A @ B when N and K are multiples of 4 (vec4 arrays), for GPUs. A workgroup of 8 x 16
// threads computes a 128 x 128 tile of C, each thread 8 rows x 16 columns in registers
// (rows lid.y * 4 + 64 * i, columns lid.x * 4 + 32 * j). K advances 8 at a time
// through workgroup memory, A's slice stored transposed; loads past the edges are zero, and the next
// slice's global loads are issued before the current one is multiplied.
var<workgroup> matmul_t128_a: array<vec4<f32>, 256>;  // [k * 32 + row / 4]
var<workgroup> matmul_t128_b: array<vec4<f32>, 256>;  // [k * 32 + column / 4]

@compute @workgroup_size(8, 16)
fn matmul_t128(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let n4 = dims.N / 4u;
    let k4 = dims.K / 4u;
    let row0 = wid.y * 128u;
    let col0 = wid.x * 32u;
    let t = lid.y * 8u + lid.x;
    var c0_0 = vec4<f32>(0.0);
    var c0_1 = vec4<f32>(0.0);
    var c0_2 = vec4<f32>(0.0);
    var c0_3 = vec4<f32>(0.0);
    var c1_0 = vec4<f32>(0.0);
    var c1_1 = vec4<f32>(0.0);
    var c1_2 = vec4<f32>(0.0);
    var c1_3 = vec4<f32>(0.0);
    var c2_0 = vec4<f32>(0.0);
    var c2_1 = vec4<f32>(0.0);
    var c2_2 = vec4<f32>(0.0);
    var c2_3 = vec4<f32>(0.0);
    var c3_0 = vec4<f32>(0.0);
    var c3_1 = vec4<f32>(0.0);
    var c3_2 = vec4<f32>(0.0);
    var c3_3 = vec4<f32>(0.0);
    var c4_0 = vec4<f32>(0.0);
    var c4_1 = vec4<f32>(0.0);
    var c4_2 = vec4<f32>(0.0);
    var c4_3 = vec4<f32>(0.0);
    var c5_0 = vec4<f32>(0.0);
    var c5_1 = vec4<f32>(0.0);
    var c5_2 = vec4<f32>(0.0);
    var c5_3 = vec4<f32>(0.0);
    var c6_0 = vec4<f32>(0.0);
    var c6_1 = vec4<f32>(0.0);
    var c6_2 = vec4<f32>(0.0);
    var c6_3 = vec4<f32>(0.0);
    var c7_0 = vec4<f32>(0.0);
    var c7_1 = vec4<f32>(0.0);
    var c7_2 = vec4<f32>(0.0);
    var c7_3 = vec4<f32>(0.0);
    let ar0 = (t + 0u) / 2u;
    let aq0 = (t + 0u) % 2u;
    let aok0 = row0 + ar0 < dims.M;
    let abase0 = (row0 + ar0) * k4 + aq0;
    var va0 = vec4<f32>(0.0);
    let ar1 = (t + 128u) / 2u;
    let aq1 = (t + 128u) % 2u;
    let aok1 = row0 + ar1 < dims.M;
    let abase1 = (row0 + ar1) * k4 + aq1;
    var va1 = vec4<f32>(0.0);
    let bk0 = (t + 0u) / 32u;
    let bc0 = (t + 0u) % 32u;
    let bok0 = col0 + bc0 < n4;
    var vb0 = vec4<f32>(0.0);
    let bk1 = (t + 128u) / 32u;
    let bc1 = (t + 128u) % 32u;
    let bok1 = col0 + bc1 < n4;
    var vb1 = vec4<f32>(0.0);
    va0 = vec4<f32>(0.0);
    if (aok0 && 0u + aq0 < k4) { va0 = A4[abase0 + 0u]; }
    va1 = vec4<f32>(0.0);
    if (aok1 && 0u + aq1 < k4) { va1 = A4[abase1 + 0u]; }
    vb0 = vec4<f32>(0.0);
    if (bok0 && 0u * 4u + bk0 < dims.K) { vb0 = B4[(0u * 4u + bk0) * n4 + col0 + bc0]; }
    vb1 = vec4<f32>(0.0);
    if (bok1 && 0u * 4u + bk1 < dims.K) { vb1 = B4[(0u * 4u + bk1) * n4 + col0 + bc1]; }
    for (var k0 = 0u; k0 < k4; k0 = k0 + 2u) {
        matmul_t128_a[(aq0 * 4u + 0u) * 32u + ar0 / 4u][ar0 % 4u] = va0.x;
        matmul_t128_a[(aq0 * 4u + 1u) * 32u + ar0 / 4u][ar0 % 4u] = va0.y;
        matmul_t128_a[(aq0 * 4u + 2u) * 32u + ar0 / 4u][ar0 % 4u] = va0.z;
        matmul_t128_a[(aq0 * 4u + 3u) * 32u + ar0 / 4u][ar0 % 4u] = va0.w;
        matmul_t128_a[(aq1 * 4u + 0u) * 32u + ar1 / 4u][ar1 % 4u] = va1.x;
        matmul_t128_a[(aq1 * 4u + 1u) * 32u + ar1 / 4u][ar1 % 4u] = va1.y;
        matmul_t128_a[(aq1 * 4u + 2u) * 32u + ar1 / 4u][ar1 % 4u] = va1.z;
        matmul_t128_a[(aq1 * 4u + 3u) * 32u + ar1 / 4u][ar1 % 4u] = va1.w;
        matmul_t128_b[bk0 * 32u + bc0] = vb0;
        matmul_t128_b[bk1 * 32u + bc1] = vb1;
        workgroupBarrier();
        let next = k0 + 2u;
        va0 = vec4<f32>(0.0);
        if (aok0 && next + aq0 < k4) { va0 = A4[abase0 + next]; }
        va1 = vec4<f32>(0.0);
        if (aok1 && next + aq1 < k4) { va1 = A4[abase1 + next]; }
        vb0 = vec4<f32>(0.0);
        if (bok0 && next * 4u + bk0 < dims.K) { vb0 = B4[(next * 4u + bk0) * n4 + col0 + bc0]; }
        vb1 = vec4<f32>(0.0);
        if (bok1 && next * 4u + bk1 < dims.K) { vb1 = B4[(next * 4u + bk1) * n4 + col0 + bc1]; }
        let a0_0 = matmul_t128_a[0u + lid.y];
        let a0_1 = matmul_t128_a[16u + lid.y];
        let b0_0 = matmul_t128_b[0u + lid.x];
        let b0_1 = matmul_t128_b[8u + lid.x];
        let b0_2 = matmul_t128_b[16u + lid.x];
        let b0_3 = matmul_t128_b[24u + lid.x];
        c0_0 = c0_0 + a0_0.x * b0_0;
        c0_1 = c0_1 + a0_0.x * b0_1;
        c0_2 = c0_2 + a0_0.x * b0_2;
        c0_3 = c0_3 + a0_0.x * b0_3;
        c1_0 = c1_0 + a0_0.y * b0_0;
        c1_1 = c1_1 + a0_0.y * b0_1;
        c1_2 = c1_2 + a0_0.y * b0_2;
        c1_3 = c1_3 + a0_0.y * b0_3;
        c2_0 = c2_0 + a0_0.z * b0_0;
        c2_1 = c2_1 + a0_0.z * b0_1;
        c2_2 = c2_2 + a0_0.z * b0_2;
        c2_3 = c2_3 + a0_0.z * b0_3;
        c3_0 = c3_0 + a0_0.w * b0_0;
        c3_1 = c3_1 + a0_0.w * b0_1;
        c3_2 = c3_2 + a0_0.w * b0_2;
        c3_3 = c3_3 + a0_0.w * b0_3;
        c4_0 = c4_0 + a0_1.x * b0_0;
        c4_1 = c4_1 + a0_1.x * b0_1;
        c4_2 = c4_2 + a0_1.x * b0_2;
        c4_3 = c4_3 + a0_1.x * b0_3;
        c5_0 = c5_0 + a0_1.y * b0_0;
        c5_1 = c5_1 + a0_1.y * b0_1;
        c5_2 = c5_2 + a0_1.y * b0_2;
        c5_3 = c5_3 + a0_1.y * b0_3;
        c6_0 = c6_0 + a0_1.z * b0_0;
        c6_1 = c6_1 + a0_1.z * b0_1;
        c6_2 = c6_2 + a0_1.z * b0_2;
        c6_3 = c6_3 + a0_1.z * b0_3;
        c7_0 = c7_0 + a0_1.w * b0_0;
        c7_1 = c7_1 + a0_1.w * b0_1;
        c7_2 = c7_2 + a0_1.w * b0_2;
        c7_3 = c7_3 + a0_1.w * b0_3;
        let a1_0 = matmul_t128_a[32u + lid.y];
        let a1_1 = matmul_t128_a[48u + lid.y];
        let b1_0 = matmul_t128_b[32u + lid.x];
        let b1_1 = matmul_t128_b[40u + lid.x];
        let b1_2 = matmul_t128_b[48u + lid.x];
        let b1_3 = matmul_t128_b[56u + lid.x];
        c0_0 = c0_0 + a1_0.x * b1_0;
        c0_1 = c0_1 + a1_0.x * b1_1;
        c0_2 = c0_2 + a1_0.x * b1_2;
        c0_3 = c0_3 + a1_0.x * b1_3;
        c1_0 = c1_0 + a1_0.y * b1_0;
        c1_1 = c1_1 + a1_0.y * b1_1;
        c1_2 = c1_2 + a1_0.y * b1_2;
        c1_3 = c1_3 + a1_0.y * b1_3;
        c2_0 = c2_0 + a1_0.z * b1_0;
        c2_1 = c2_1 + a1_0.z * b1_1;
        c2_2 = c2_2 + a1_0.z * b1_2;
        c2_3 = c2_3 + a1_0.z * b1_3;
        c3_0 = c3_0 + a1_0.w * b1_0;
        c3_1 = c3_1 + a1_0.w * b1_1;
        c3_2 = c3_2 + a1_0.w * b1_2;
        c3_3 = c3_3 + a1_0.w * b1_3;
        c4_0 = c4_0 + a1_1.x * b1_0;
        c4_1 = c4_1 + a1_1.x * b1_1;
        c4_2 = c4_2 + a1_1.x * b1_2;
        c4_3 = c4_3 + a1_1.x * b1_3;
        c5_0 = c5_0 + a1_1.y * b1_0;
        c5_1 = c5_1 + a1_1.y * b1_1;
        c5_2 = c5_2 + a1_1.y * b1_2;
        c5_3 = c5_3 + a1_1.y * b1_3;
        c6_0 = c6_0 + a1_1.z * b1_0;
        c6_1 = c6_1 + a1_1.z * b1_1;
        c6_2 = c6_2 + a1_1.z * b1_2;
        c6_3 = c6_3 + a1_1.z * b1_3;
        c7_0 = c7_0 + a1_1.w * b1_0;
        c7_1 = c7_1 + a1_1.w * b1_1;
        c7_2 = c7_2 + a1_1.w * b1_2;
        c7_3 = c7_3 + a1_1.w * b1_3;
        let a2_0 = matmul_t128_a[64u + lid.y];
        let a2_1 = matmul_t128_a[80u + lid.y];
        let b2_0 = matmul_t128_b[64u + lid.x];
        let b2_1 = matmul_t128_b[72u + lid.x];
        let b2_2 = matmul_t128_b[80u + lid.x];
        let b2_3 = matmul_t128_b[88u + lid.x];
        c0_0 = c0_0 + a2_0.x * b2_0;
        c0_1 = c0_1 + a2_0.x * b2_1;
        c0_2 = c0_2 + a2_0.x * b2_2;
        c0_3 = c0_3 + a2_0.x * b2_3;
        c1_0 = c1_0 + a2_0.y * b2_0;
        c1_1 = c1_1 + a2_0.y * b2_1;
        c1_2 = c1_2 + a2_0.y * b2_2;
        c1_3 = c1_3 + a2_0.y * b2_3;
        c2_0 = c2_0 + a2_0.z * b2_0;
        c2_1 = c2_1 + a2_0.z * b2_1;
        c2_2 = c2_2 + a2_0.z * b2_2;
        c2_3 = c2_3 + a2_0.z * b2_3;
        c3_0 = c3_0 + a2_0.w * b2_0;
        c3_1 = c3_1 + a2_0.w * b2_1;
        c3_2 = c3_2 + a2_0.w * b2_2;
        c3_3 = c3_3 + a2_0.w * b2_3;
        c4_0 = c4_0 + a2_1.x * b2_0;
        c4_1 = c4_1 + a2_1.x * b2_1;
        c4_2 = c4_2 + a2_1.x * b2_2;
        c4_3 = c4_3 + a2_1.x * b2_3;
        c5_0 = c5_0 + a2_1.y * b2_0;
        c5_1 = c5_1 + a2_1.y * b2_1;
        c5_2 = c5_2 + a2_1.y * b2_2;
        c5_3 = c5_3 + a2_1.y * b2_3;
        c6_0 = c6_0 + a2_1.z * b2_0;
        c6_1 = c6_1 + a2_1.z * b2_1;
        c6_2 = c6_2 + a2_1.z * b2_2;
        c6_3 = c6_3 + a2_1.z * b2_3;
        c7_0 = c7_0 + a2_1.w * b2_0;
        c7_1 = c7_1 + a2_1.w * b2_1;
        c7_2 = c7_2 + a2_1.w * b2_2;
        c7_3 = c7_3 + a2_1.w * b2_3;
        let a3_0 = matmul_t128_a[96u + lid.y];
        let a3_1 = matmul_t128_a[112u + lid.y];
        let b3_0 = matmul_t128_b[96u + lid.x];
        let b3_1 = matmul_t128_b[104u + lid.x];
        let b3_2 = matmul_t128_b[112u + lid.x];
        let b3_3 = matmul_t128_b[120u + lid.x];
        c0_0 = c0_0 + a3_0.x * b3_0;
        c0_1 = c0_1 + a3_0.x * b3_1;
        c0_2 = c0_2 + a3_0.x * b3_2;
        c0_3 = c0_3 + a3_0.x * b3_3;
        c1_0 = c1_0 + a3_0.y * b3_0;
        c1_1 = c1_1 + a3_0.y * b3_1;
        c1_2 = c1_2 + a3_0.y * b3_2;
        c1_3 = c1_3 + a3_0.y * b3_3;
        c2_0 = c2_0 + a3_0.z * b3_0;
        c2_1 = c2_1 + a3_0.z * b3_1;
        c2_2 = c2_2 + a3_0.z * b3_2;
        c2_3 = c2_3 + a3_0.z * b3_3;
        c3_0 = c3_0 + a3_0.w * b3_0;
        c3_1 = c3_1 + a3_0.w * b3_1;
        c3_2 = c3_2 + a3_0.w * b3_2;
        c3_3 = c3_3 + a3_0.w * b3_3;
        c4_0 = c4_0 + a3_1.x * b3_0;
        c4_1 = c4_1 + a3_1.x * b3_1;
        c4_2 = c4_2 + a3_1.x * b3_2;
        c4_3 = c4_3 + a3_1.x * b3_3;
        c5_0 = c5_0 + a3_1.y * b3_0;
        c5_1 = c5_1 + a3_1.y * b3_1;
        c5_2 = c5_2 + a3_1.y * b3_2;
        c5_3 = c5_3 + a3_1.y * b3_3;
        c6_0 = c6_0 + a3_1.z * b3_0;
        c6_1 = c6_1 + a3_1.z * b3_1;
        c6_2 = c6_2 + a3_1.z * b3_2;
        c6_3 = c6_3 + a3_1.z * b3_3;
        c7_0 = c7_0 + a3_1.w * b3_0;
        c7_1 = c7_1 + a3_1.w * b3_1;
        c7_2 = c7_2 + a3_1.w * b3_2;
        c7_3 = c7_3 + a3_1.w * b3_3;
        let a4_0 = matmul_t128_a[128u + lid.y];
        let a4_1 = matmul_t128_a[144u + lid.y];
        let b4_0 = matmul_t128_b[128u + lid.x];
        let b4_1 = matmul_t128_b[136u + lid.x];
        let b4_2 = matmul_t128_b[144u + lid.x];
        let b4_3 = matmul_t128_b[152u + lid.x];
        c0_0 = c0_0 + a4_0.x * b4_0;
        c0_1 = c0_1 + a4_0.x * b4_1;
        c0_2 = c0_2 + a4_0.x * b4_2;
        c0_3 = c0_3 + a4_0.x * b4_3;
        c1_0 = c1_0 + a4_0.y * b4_0;
        c1_1 = c1_1 + a4_0.y * b4_1;
        c1_2 = c1_2 + a4_0.y * b4_2;
        c1_3 = c1_3 + a4_0.y * b4_3;
        c2_0 = c2_0 + a4_0.z * b4_0;
        c2_1 = c2_1 + a4_0.z * b4_1;
        c2_2 = c2_2 + a4_0.z * b4_2;
        c2_3 = c2_3 + a4_0.z * b4_3;
        c3_0 = c3_0 + a4_0.w * b4_0;
        c3_1 = c3_1 + a4_0.w * b4_1;
        c3_2 = c3_2 + a4_0.w * b4_2;
        c3_3 = c3_3 + a4_0.w * b4_3;
        c4_0 = c4_0 + a4_1.x * b4_0;
        c4_1 = c4_1 + a4_1.x * b4_1;
        c4_2 = c4_2 + a4_1.x * b4_2;
        c4_3 = c4_3 + a4_1.x * b4_3;
        c5_0 = c5_0 + a4_1.y * b4_0;
        c5_1 = c5_1 + a4_1.y * b4_1;
        c5_2 = c5_2 + a4_1.y * b4_2;
        c5_3 = c5_3 + a4_1.y * b4_3;
        c6_0 = c6_0 + a4_1.z * b4_0;
        c6_1 = c6_1 + a4_1.z * b4_1;
        c6_2 = c6_2 + a4_1.z * b4_2;
        c6_3 = c6_3 + a4_1.z * b4_3;
        c7_0 = c7_0 + a4_1.w * b4_0;
        c7_1 = c7_1 + a4_1.w * b4_1;
        c7_2 = c7_2 + a4_1.w * b4_2;
        c7_3 = c7_3 + a4_1.w * b4_3;
        let a5_0 = matmul_t128_a[160u + lid.y];
        let a5_1 = matmul_t128_a[176u + lid.y];
        let b5_0 = matmul_t128_b[160u + lid.x];
        let b5_1 = matmul_t128_b[168u + lid.x];
        let b5_2 = matmul_t128_b[176u + lid.x];
        let b5_3 = matmul_t128_b[184u + lid.x];
        c0_0 = c0_0 + a5_0.x * b5_0;
        c0_1 = c0_1 + a5_0.x * b5_1;
        c0_2 = c0_2 + a5_0.x * b5_2;
        c0_3 = c0_3 + a5_0.x * b5_3;
        c1_0 = c1_0 + a5_0.y * b5_0;
        c1_1 = c1_1 + a5_0.y * b5_1;
        c1_2 = c1_2 + a5_0.y * b5_2;
        c1_3 = c1_3 + a5_0.y * b5_3;
        c2_0 = c2_0 + a5_0.z * b5_0;
        c2_1 = c2_1 + a5_0.z * b5_1;
        c2_2 = c2_2 + a5_0.z * b5_2;
        c2_3 = c2_3 + a5_0.z * b5_3;
        c3_0 = c3_0 + a5_0.w * b5_0;
        c3_1 = c3_1 + a5_0.w * b5_1;
        c3_2 = c3_2 + a5_0.w * b5_2;
        c3_3 = c3_3 + a5_0.w * b5_3;
        c4_0 = c4_0 + a5_1.x * b5_0;
        c4_1 = c4_1 + a5_1.x * b5_1;
        c4_2 = c4_2 + a5_1.x * b5_2;
        c4_3 = c4_3 + a5_1.x * b5_3;
        c5_0 = c5_0 + a5_1.y * b5_0;
        c5_1 = c5_1 + a5_1.y * b5_1;
        c5_2 = c5_2 + a5_1.y * b5_2;
        c5_3 = c5_3 + a5_1.y * b5_3;
        c6_0 = c6_0 + a5_1.z * b5_0;
        c6_1 = c6_1 + a5_1.z * b5_1;
        c6_2 = c6_2 + a5_1.z * b5_2;
        c6_3 = c6_3 + a5_1.z * b5_3;
        c7_0 = c7_0 + a5_1.w * b5_0;
        c7_1 = c7_1 + a5_1.w * b5_1;
        c7_2 = c7_2 + a5_1.w * b5_2;
        c7_3 = c7_3 + a5_1.w * b5_3;
        let a6_0 = matmul_t128_a[192u + lid.y];
        let a6_1 = matmul_t128_a[208u + lid.y];
        let b6_0 = matmul_t128_b[192u + lid.x];
        let b6_1 = matmul_t128_b[200u + lid.x];
        let b6_2 = matmul_t128_b[208u + lid.x];
        let b6_3 = matmul_t128_b[216u + lid.x];
        c0_0 = c0_0 + a6_0.x * b6_0;
        c0_1 = c0_1 + a6_0.x * b6_1;
        c0_2 = c0_2 + a6_0.x * b6_2;
        c0_3 = c0_3 + a6_0.x * b6_3;
        c1_0 = c1_0 + a6_0.y * b6_0;
        c1_1 = c1_1 + a6_0.y * b6_1;
        c1_2 = c1_2 + a6_0.y * b6_2;
        c1_3 = c1_3 + a6_0.y * b6_3;
        c2_0 = c2_0 + a6_0.z * b6_0;
        c2_1 = c2_1 + a6_0.z * b6_1;
        c2_2 = c2_2 + a6_0.z * b6_2;
        c2_3 = c2_3 + a6_0.z * b6_3;
        c3_0 = c3_0 + a6_0.w * b6_0;
        c3_1 = c3_1 + a6_0.w * b6_1;
        c3_2 = c3_2 + a6_0.w * b6_2;
        c3_3 = c3_3 + a6_0.w * b6_3;
        c4_0 = c4_0 + a6_1.x * b6_0;
        c4_1 = c4_1 + a6_1.x * b6_1;
        c4_2 = c4_2 + a6_1.x * b6_2;
        c4_3 = c4_3 + a6_1.x * b6_3;
        c5_0 = c5_0 + a6_1.y * b6_0;
        c5_1 = c5_1 + a6_1.y * b6_1;
        c5_2 = c5_2 + a6_1.y * b6_2;
        c5_3 = c5_3 + a6_1.y * b6_3;
        c6_0 = c6_0 + a6_1.z * b6_0;
        c6_1 = c6_1 + a6_1.z * b6_1;
        c6_2 = c6_2 + a6_1.z * b6_2;
        c6_3 = c6_3 + a6_1.z * b6_3;
        c7_0 = c7_0 + a6_1.w * b6_0;
        c7_1 = c7_1 + a6_1.w * b6_1;
        c7_2 = c7_2 + a6_1.w * b6_2;
        c7_3 = c7_3 + a6_1.w * b6_3;
        let a7_0 = matmul_t128_a[224u + lid.y];
        let a7_1 = matmul_t128_a[240u + lid.y];
        let b7_0 = matmul_t128_b[224u + lid.x];
        let b7_1 = matmul_t128_b[232u + lid.x];
        let b7_2 = matmul_t128_b[240u + lid.x];
        let b7_3 = matmul_t128_b[248u + lid.x];
        c0_0 = c0_0 + a7_0.x * b7_0;
        c0_1 = c0_1 + a7_0.x * b7_1;
        c0_2 = c0_2 + a7_0.x * b7_2;
        c0_3 = c0_3 + a7_0.x * b7_3;
        c1_0 = c1_0 + a7_0.y * b7_0;
        c1_1 = c1_1 + a7_0.y * b7_1;
        c1_2 = c1_2 + a7_0.y * b7_2;
        c1_3 = c1_3 + a7_0.y * b7_3;
        c2_0 = c2_0 + a7_0.z * b7_0;
        c2_1 = c2_1 + a7_0.z * b7_1;
        c2_2 = c2_2 + a7_0.z * b7_2;
        c2_3 = c2_3 + a7_0.z * b7_3;
        c3_0 = c3_0 + a7_0.w * b7_0;
        c3_1 = c3_1 + a7_0.w * b7_1;
        c3_2 = c3_2 + a7_0.w * b7_2;
        c3_3 = c3_3 + a7_0.w * b7_3;
        c4_0 = c4_0 + a7_1.x * b7_0;
        c4_1 = c4_1 + a7_1.x * b7_1;
        c4_2 = c4_2 + a7_1.x * b7_2;
        c4_3 = c4_3 + a7_1.x * b7_3;
        c5_0 = c5_0 + a7_1.y * b7_0;
        c5_1 = c5_1 + a7_1.y * b7_1;
        c5_2 = c5_2 + a7_1.y * b7_2;
        c5_3 = c5_3 + a7_1.y * b7_3;
        c6_0 = c6_0 + a7_1.z * b7_0;
        c6_1 = c6_1 + a7_1.z * b7_1;
        c6_2 = c6_2 + a7_1.z * b7_2;
        c6_3 = c6_3 + a7_1.z * b7_3;
        c7_0 = c7_0 + a7_1.w * b7_0;
        c7_1 = c7_1 + a7_1.w * b7_1;
        c7_2 = c7_2 + a7_1.w * b7_2;
        c7_3 = c7_3 + a7_1.w * b7_3;
        workgroupBarrier();
    }
    if (row0 + (lid.y + 0u) * 4u + 0u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 0u) * n4 + col0 + lid.x + 0u] = c0_0; }
        if (col0 + lid.x + 8u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 0u) * n4 + col0 + lid.x + 8u] = c0_1; }
        if (col0 + lid.x + 16u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 0u) * n4 + col0 + lid.x + 16u] = c0_2; }
        if (col0 + lid.x + 24u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 0u) * n4 + col0 + lid.x + 24u] = c0_3; }
    }
    if (row0 + (lid.y + 0u) * 4u + 1u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 1u) * n4 + col0 + lid.x + 0u] = c1_0; }
        if (col0 + lid.x + 8u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 1u) * n4 + col0 + lid.x + 8u] = c1_1; }
        if (col0 + lid.x + 16u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 1u) * n4 + col0 + lid.x + 16u] = c1_2; }
        if (col0 + lid.x + 24u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 1u) * n4 + col0 + lid.x + 24u] = c1_3; }
    }
    if (row0 + (lid.y + 0u) * 4u + 2u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 2u) * n4 + col0 + lid.x + 0u] = c2_0; }
        if (col0 + lid.x + 8u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 2u) * n4 + col0 + lid.x + 8u] = c2_1; }
        if (col0 + lid.x + 16u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 2u) * n4 + col0 + lid.x + 16u] = c2_2; }
        if (col0 + lid.x + 24u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 2u) * n4 + col0 + lid.x + 24u] = c2_3; }
    }
    if (row0 + (lid.y + 0u) * 4u + 3u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 3u) * n4 + col0 + lid.x + 0u] = c3_0; }
        if (col0 + lid.x + 8u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 3u) * n4 + col0 + lid.x + 8u] = c3_1; }
        if (col0 + lid.x + 16u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 3u) * n4 + col0 + lid.x + 16u] = c3_2; }
        if (col0 + lid.x + 24u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 3u) * n4 + col0 + lid.x + 24u] = c3_3; }
    }
    if (row0 + (lid.y + 16u) * 4u + 0u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[(row0 + (lid.y + 16u) * 4u + 0u) * n4 + col0 + lid.x + 0u] = c4_0; }
        if (col0 + lid.x + 8u < n4) { C4[(row0 + (lid.y + 16u) * 4u + 0u) * n4 + col0 + lid.x + 8u] = c4_1; }
        if (col0 + lid.x + 16u < n4) { C4[(row0 + (lid.y + 16u) * 4u + 0u) * n4 + col0 + lid.x + 16u] = c4_2; }
        if (col0 + lid.x + 24u < n4) { C4[(row0 + (lid.y + 16u) * 4u + 0u) * n4 + col0 + lid.x + 24u] = c4_3; }
    }
    if (row0 + (lid.y + 16u) * 4u + 1u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[(row0 + (lid.y + 16u) * 4u + 1u) * n4 + col0 + lid.x + 0u] = c5_0; }
        if (col0 + lid.x + 8u < n4) { C4[(row0 + (lid.y + 16u) * 4u + 1u) * n4 + col0 + lid.x + 8u] = c5_1; }
        if (col0 + lid.x + 16u < n4) { C4[(row0 + (lid.y + 16u) * 4u + 1u) * n4 + col0 + lid.x + 16u] = c5_2; }
        if (col0 + lid.x + 24u < n4) { C4[(row0 + (lid.y + 16u) * 4u + 1u) * n4 + col0 + lid.x + 24u] = c5_3; }
    }
    if (row0 + (lid.y + 16u) * 4u + 2u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[(row0 + (lid.y + 16u) * 4u + 2u) * n4 + col0 + lid.x + 0u] = c6_0; }
        if (col0 + lid.x + 8u < n4) { C4[(row0 + (lid.y + 16u) * 4u + 2u) * n4 + col0 + lid.x + 8u] = c6_1; }
        if (col0 + lid.x + 16u < n4) { C4[(row0 + (lid.y + 16u) * 4u + 2u) * n4 + col0 + lid.x + 16u] = c6_2; }
        if (col0 + lid.x + 24u < n4) { C4[(row0 + (lid.y + 16u) * 4u + 2u) * n4 + col0 + lid.x + 24u] = c6_3; }
    }
    if (row0 + (lid.y + 16u) * 4u + 3u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[(row0 + (lid.y + 16u) * 4u + 3u) * n4 + col0 + lid.x + 0u] = c7_0; }
        if (col0 + lid.x + 8u < n4) { C4[(row0 + (lid.y + 16u) * 4u + 3u) * n4 + col0 + lid.x + 8u] = c7_1; }
        if (col0 + lid.x + 16u < n4) { C4[(row0 + (lid.y + 16u) * 4u + 3u) * n4 + col0 + lid.x + 16u] = c7_2; }
        if (col0 + lid.x + 24u < n4) { C4[(row0 + (lid.y + 16u) * 4u + 3u) * n4 + col0 + lid.x + 24u] = c7_3; }
    }
}

// C = A @ B when N and K are multiples of 4 (vec4 arrays), for GPUs. A workgroup of 8 x 16
// threads computes a 128 x 128 tile of C, each thread 8 rows x 16 columns in registers
// (rows lid.y * 4 + 64 * i, columns lid.x * 4 + 32 * j). K advances 8 at a time
// through workgroup memory, A's slice stored transposed; loads past the edges are zero, and the next
// slice's global loads are issued before the current one is multiplied.
var<workgroup> matmul_t128z_a: array<vec4<f32>, 256>;  // [k * 32 + row / 4]
var<workgroup> matmul_t128z_b: array<vec4<f32>, 256>;  // [k * 32 + column / 4]

@compute @workgroup_size(8, 16)
fn matmul_t128z(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let n4 = dims.N / 4u;
    let k4 = dims.K / 4u;
    let row0 = wid.y * 128u;
    let col0 = wid.x * 32u;
    let t = lid.y * 8u + lid.x;
    // workgroups along z: a product each (a batch) or a slice of K each (partial products);
    // their vec4 offsets into A, B and C, and the vec4s of K each sums (0: all of K)
    let za = wid.z * dims.a_z;
    let zb = wid.z * dims.b_z;
    let zc = wid.z * dims.c_z;
    let kn = select(k4, min(dims.k_z, k4 - min(k4, wid.z * dims.k_z)), dims.k_z != 0u);
    var c0_0 = vec4<f32>(0.0);
    var c0_1 = vec4<f32>(0.0);
    var c0_2 = vec4<f32>(0.0);
    var c0_3 = vec4<f32>(0.0);
    var c1_0 = vec4<f32>(0.0);
    var c1_1 = vec4<f32>(0.0);
    var c1_2 = vec4<f32>(0.0);
    var c1_3 = vec4<f32>(0.0);
    var c2_0 = vec4<f32>(0.0);
    var c2_1 = vec4<f32>(0.0);
    var c2_2 = vec4<f32>(0.0);
    var c2_3 = vec4<f32>(0.0);
    var c3_0 = vec4<f32>(0.0);
    var c3_1 = vec4<f32>(0.0);
    var c3_2 = vec4<f32>(0.0);
    var c3_3 = vec4<f32>(0.0);
    var c4_0 = vec4<f32>(0.0);
    var c4_1 = vec4<f32>(0.0);
    var c4_2 = vec4<f32>(0.0);
    var c4_3 = vec4<f32>(0.0);
    var c5_0 = vec4<f32>(0.0);
    var c5_1 = vec4<f32>(0.0);
    var c5_2 = vec4<f32>(0.0);
    var c5_3 = vec4<f32>(0.0);
    var c6_0 = vec4<f32>(0.0);
    var c6_1 = vec4<f32>(0.0);
    var c6_2 = vec4<f32>(0.0);
    var c6_3 = vec4<f32>(0.0);
    var c7_0 = vec4<f32>(0.0);
    var c7_1 = vec4<f32>(0.0);
    var c7_2 = vec4<f32>(0.0);
    var c7_3 = vec4<f32>(0.0);
    let ar0 = (t + 0u) / 2u;
    let aq0 = (t + 0u) % 2u;
    let aok0 = row0 + ar0 < dims.M;
    let abase0 = za + (row0 + ar0) * k4 + aq0;
    var va0 = vec4<f32>(0.0);
    let ar1 = (t + 128u) / 2u;
    let aq1 = (t + 128u) % 2u;
    let aok1 = row0 + ar1 < dims.M;
    let abase1 = za + (row0 + ar1) * k4 + aq1;
    var va1 = vec4<f32>(0.0);
    let bk0 = (t + 0u) / 32u;
    let bc0 = (t + 0u) % 32u;
    let bok0 = col0 + bc0 < n4;
    let bbase0 = zb + bk0 * n4 + col0 + bc0;
    var vb0 = vec4<f32>(0.0);
    let bk1 = (t + 128u) / 32u;
    let bc1 = (t + 128u) % 32u;
    let bok1 = col0 + bc1 < n4;
    let bbase1 = zb + bk1 * n4 + col0 + bc1;
    var vb1 = vec4<f32>(0.0);
    va0 = vec4<f32>(0.0);
    if (aok0 && 0u + aq0 < kn) { va0 = A4[abase0 + 0u]; }
    va1 = vec4<f32>(0.0);
    if (aok1 && 0u + aq1 < kn) { va1 = A4[abase1 + 0u]; }
    vb0 = vec4<f32>(0.0);
    if (bok0 && 0u * 4u + bk0 < kn * 4u) { vb0 = B4[bbase0 + 0u * 4u * n4]; }
    vb1 = vec4<f32>(0.0);
    if (bok1 && 0u * 4u + bk1 < kn * 4u) { vb1 = B4[bbase1 + 0u * 4u * n4]; }
    for (var k0 = 0u; k0 < kn; k0 = k0 + 2u) {
        matmul_t128z_a[(aq0 * 4u + 0u) * 32u + ar0 / 4u][ar0 % 4u] = va0.x;
        matmul_t128z_a[(aq0 * 4u + 1u) * 32u + ar0 / 4u][ar0 % 4u] = va0.y;
        matmul_t128z_a[(aq0 * 4u + 2u) * 32u + ar0 / 4u][ar0 % 4u] = va0.z;
        matmul_t128z_a[(aq0 * 4u + 3u) * 32u + ar0 / 4u][ar0 % 4u] = va0.w;
        matmul_t128z_a[(aq1 * 4u + 0u) * 32u + ar1 / 4u][ar1 % 4u] = va1.x;
        matmul_t128z_a[(aq1 * 4u + 1u) * 32u + ar1 / 4u][ar1 % 4u] = va1.y;
        matmul_t128z_a[(aq1 * 4u + 2u) * 32u + ar1 / 4u][ar1 % 4u] = va1.z;
        matmul_t128z_a[(aq1 * 4u + 3u) * 32u + ar1 / 4u][ar1 % 4u] = va1.w;
        matmul_t128z_b[bk0 * 32u + bc0] = vb0;
        matmul_t128z_b[bk1 * 32u + bc1] = vb1;
        workgroupBarrier();
        let next = k0 + 2u;
        va0 = vec4<f32>(0.0);
        if (aok0 && next + aq0 < kn) { va0 = A4[abase0 + next]; }
        va1 = vec4<f32>(0.0);
        if (aok1 && next + aq1 < kn) { va1 = A4[abase1 + next]; }
        vb0 = vec4<f32>(0.0);
        if (bok0 && next * 4u + bk0 < kn * 4u) { vb0 = B4[bbase0 + next * 4u * n4]; }
        vb1 = vec4<f32>(0.0);
        if (bok1 && next * 4u + bk1 < kn * 4u) { vb1 = B4[bbase1 + next * 4u * n4]; }
        let a0_0 = matmul_t128z_a[0u + lid.y];
        let a0_1 = matmul_t128z_a[16u + lid.y];
        let b0_0 = matmul_t128z_b[0u + lid.x];
        let b0_1 = matmul_t128z_b[8u + lid.x];
        let b0_2 = matmul_t128z_b[16u + lid.x];
        let b0_3 = matmul_t128z_b[24u + lid.x];
        c0_0 = c0_0 + a0_0.x * b0_0;
        c0_1 = c0_1 + a0_0.x * b0_1;
        c0_2 = c0_2 + a0_0.x * b0_2;
        c0_3 = c0_3 + a0_0.x * b0_3;
        c1_0 = c1_0 + a0_0.y * b0_0;
        c1_1 = c1_1 + a0_0.y * b0_1;
        c1_2 = c1_2 + a0_0.y * b0_2;
        c1_3 = c1_3 + a0_0.y * b0_3;
        c2_0 = c2_0 + a0_0.z * b0_0;
        c2_1 = c2_1 + a0_0.z * b0_1;
        c2_2 = c2_2 + a0_0.z * b0_2;
        c2_3 = c2_3 + a0_0.z * b0_3;
        c3_0 = c3_0 + a0_0.w * b0_0;
        c3_1 = c3_1 + a0_0.w * b0_1;
        c3_2 = c3_2 + a0_0.w * b0_2;
        c3_3 = c3_3 + a0_0.w * b0_3;
        c4_0 = c4_0 + a0_1.x * b0_0;
        c4_1 = c4_1 + a0_1.x * b0_1;
        c4_2 = c4_2 + a0_1.x * b0_2;
        c4_3 = c4_3 + a0_1.x * b0_3;
        c5_0 = c5_0 + a0_1.y * b0_0;
        c5_1 = c5_1 + a0_1.y * b0_1;
        c5_2 = c5_2 + a0_1.y * b0_2;
        c5_3 = c5_3 + a0_1.y * b0_3;
        c6_0 = c6_0 + a0_1.z * b0_0;
        c6_1 = c6_1 + a0_1.z * b0_1;
        c6_2 = c6_2 + a0_1.z * b0_2;
        c6_3 = c6_3 + a0_1.z * b0_3;
        c7_0 = c7_0 + a0_1.w * b0_0;
        c7_1 = c7_1 + a0_1.w * b0_1;
        c7_2 = c7_2 + a0_1.w * b0_2;
        c7_3 = c7_3 + a0_1.w * b0_3;
        let a1_0 = matmul_t128z_a[32u + lid.y];
        let a1_1 = matmul_t128z_a[48u + lid.y];
        let b1_0 = matmul_t128z_b[32u + lid.x];
        let b1_1 = matmul_t128z_b[40u + lid.x];
        let b1_2 = matmul_t128z_b[48u + lid.x];
        let b1_3 = matmul_t128z_b[56u + lid.x];
        c0_0 = c0_0 + a1_0.x * b1_0;
        c0_1 = c0_1 + a1_0.x * b1_1;
        c0_2 = c0_2 + a1_0.x * b1_2;
        c0_3 = c0_3 + a1_0.x * b1_3;
        c1_0 = c1_0 + a1_0.y * b1_0;
        c1_1 = c1_1 + a1_0.y * b1_1;
        c1_2 = c1_2 + a1_0.y * b1_2;
        c1_3 = c1_3 + a1_0.y * b1_3;
        c2_0 = c2_0 + a1_0.z * b1_0;
        c2_1 = c2_1 + a1_0.z * b1_1;
        c2_2 = c2_2 + a1_0.z * b1_2;
        c2_3 = c2_3 + a1_0.z * b1_3;
        c3_0 = c3_0 + a1_0.w * b1_0;
        c3_1 = c3_1 + a1_0.w * b1_1;
        c3_2 = c3_2 + a1_0.w * b1_2;
        c3_3 = c3_3 + a1_0.w * b1_3;
        c4_0 = c4_0 + a1_1.x * b1_0;
        c4_1 = c4_1 + a1_1.x * b1_1;
        c4_2 = c4_2 + a1_1.x * b1_2;
        c4_3 = c4_3 + a1_1.x * b1_3;
        c5_0 = c5_0 + a1_1.y * b1_0;
        c5_1 = c5_1 + a1_1.y * b1_1;
        c5_2 = c5_2 + a1_1.y * b1_2;
        c5_3 = c5_3 + a1_1.y * b1_3;
        c6_0 = c6_0 + a1_1.z * b1_0;
        c6_1 = c6_1 + a1_1.z * b1_1;
        c6_2 = c6_2 + a1_1.z * b1_2;
        c6_3 = c6_3 + a1_1.z * b1_3;
        c7_0 = c7_0 + a1_1.w * b1_0;
        c7_1 = c7_1 + a1_1.w * b1_1;
        c7_2 = c7_2 + a1_1.w * b1_2;
        c7_3 = c7_3 + a1_1.w * b1_3;
        let a2_0 = matmul_t128z_a[64u + lid.y];
        let a2_1 = matmul_t128z_a[80u + lid.y];
        let b2_0 = matmul_t128z_b[64u + lid.x];
        let b2_1 = matmul_t128z_b[72u + lid.x];
        let b2_2 = matmul_t128z_b[80u + lid.x];
        let b2_3 = matmul_t128z_b[88u + lid.x];
        c0_0 = c0_0 + a2_0.x * b2_0;
        c0_1 = c0_1 + a2_0.x * b2_1;
        c0_2 = c0_2 + a2_0.x * b2_2;
        c0_3 = c0_3 + a2_0.x * b2_3;
        c1_0 = c1_0 + a2_0.y * b2_0;
        c1_1 = c1_1 + a2_0.y * b2_1;
        c1_2 = c1_2 + a2_0.y * b2_2;
        c1_3 = c1_3 + a2_0.y * b2_3;
        c2_0 = c2_0 + a2_0.z * b2_0;
        c2_1 = c2_1 + a2_0.z * b2_1;
        c2_2 = c2_2 + a2_0.z * b2_2;
        c2_3 = c2_3 + a2_0.z * b2_3;
        c3_0 = c3_0 + a2_0.w * b2_0;
        c3_1 = c3_1 + a2_0.w * b2_1;
        c3_2 = c3_2 + a2_0.w * b2_2;
        c3_3 = c3_3 + a2_0.w * b2_3;
        c4_0 = c4_0 + a2_1.x * b2_0;
        c4_1 = c4_1 + a2_1.x * b2_1;
        c4_2 = c4_2 + a2_1.x * b2_2;
        c4_3 = c4_3 + a2_1.x * b2_3;
        c5_0 = c5_0 + a2_1.y * b2_0;
        c5_1 = c5_1 + a2_1.y * b2_1;
        c5_2 = c5_2 + a2_1.y * b2_2;
        c5_3 = c5_3 + a2_1.y * b2_3;
        c6_0 = c6_0 + a2_1.z * b2_0;
        c6_1 = c6_1 + a2_1.z * b2_1;
        c6_2 = c6_2 + a2_1.z * b2_2;
        c6_3 = c6_3 + a2_1.z * b2_3;
        c7_0 = c7_0 + a2_1.w * b2_0;
        c7_1 = c7_1 + a2_1.w * b2_1;
        c7_2 = c7_2 + a2_1.w * b2_2;
        c7_3 = c7_3 + a2_1.w * b2_3;
        let a3_0 = matmul_t128z_a[96u + lid.y];
        let a3_1 = matmul_t128z_a[112u + lid.y];
        let b3_0 = matmul_t128z_b[96u + lid.x];
        let b3_1 = matmul_t128z_b[104u + lid.x];
        let b3_2 = matmul_t128z_b[112u + lid.x];
        let b3_3 = matmul_t128z_b[120u + lid.x];
        c0_0 = c0_0 + a3_0.x * b3_0;
        c0_1 = c0_1 + a3_0.x * b3_1;
        c0_2 = c0_2 + a3_0.x * b3_2;
        c0_3 = c0_3 + a3_0.x * b3_3;
        c1_0 = c1_0 + a3_0.y * b3_0;
        c1_1 = c1_1 + a3_0.y * b3_1;
        c1_2 = c1_2 + a3_0.y * b3_2;
        c1_3 = c1_3 + a3_0.y * b3_3;
        c2_0 = c2_0 + a3_0.z * b3_0;
        c2_1 = c2_1 + a3_0.z * b3_1;
        c2_2 = c2_2 + a3_0.z * b3_2;
        c2_3 = c2_3 + a3_0.z * b3_3;
        c3_0 = c3_0 + a3_0.w * b3_0;
        c3_1 = c3_1 + a3_0.w * b3_1;
        c3_2 = c3_2 + a3_0.w * b3_2;
        c3_3 = c3_3 + a3_0.w * b3_3;
        c4_0 = c4_0 + a3_1.x * b3_0;
        c4_1 = c4_1 + a3_1.x * b3_1;
        c4_2 = c4_2 + a3_1.x * b3_2;
        c4_3 = c4_3 + a3_1.x * b3_3;
        c5_0 = c5_0 + a3_1.y * b3_0;
        c5_1 = c5_1 + a3_1.y * b3_1;
        c5_2 = c5_2 + a3_1.y * b3_2;
        c5_3 = c5_3 + a3_1.y * b3_3;
        c6_0 = c6_0 + a3_1.z * b3_0;
        c6_1 = c6_1 + a3_1.z * b3_1;
        c6_2 = c6_2 + a3_1.z * b3_2;
        c6_3 = c6_3 + a3_1.z * b3_3;
        c7_0 = c7_0 + a3_1.w * b3_0;
        c7_1 = c7_1 + a3_1.w * b3_1;
        c7_2 = c7_2 + a3_1.w * b3_2;
        c7_3 = c7_3 + a3_1.w * b3_3;
        let a4_0 = matmul_t128z_a[128u + lid.y];
        let a4_1 = matmul_t128z_a[144u + lid.y];
        let b4_0 = matmul_t128z_b[128u + lid.x];
        let b4_1 = matmul_t128z_b[136u + lid.x];
        let b4_2 = matmul_t128z_b[144u + lid.x];
        let b4_3 = matmul_t128z_b[152u + lid.x];
        c0_0 = c0_0 + a4_0.x * b4_0;
        c0_1 = c0_1 + a4_0.x * b4_1;
        c0_2 = c0_2 + a4_0.x * b4_2;
        c0_3 = c0_3 + a4_0.x * b4_3;
        c1_0 = c1_0 + a4_0.y * b4_0;
        c1_1 = c1_1 + a4_0.y * b4_1;
        c1_2 = c1_2 + a4_0.y * b4_2;
        c1_3 = c1_3 + a4_0.y * b4_3;
        c2_0 = c2_0 + a4_0.z * b4_0;
        c2_1 = c2_1 + a4_0.z * b4_1;
        c2_2 = c2_2 + a4_0.z * b4_2;
        c2_3 = c2_3 + a4_0.z * b4_3;
        c3_0 = c3_0 + a4_0.w * b4_0;
        c3_1 = c3_1 + a4_0.w * b4_1;
        c3_2 = c3_2 + a4_0.w * b4_2;
        c3_3 = c3_3 + a4_0.w * b4_3;
        c4_0 = c4_0 + a4_1.x * b4_0;
        c4_1 = c4_1 + a4_1.x * b4_1;
        c4_2 = c4_2 + a4_1.x * b4_2;
        c4_3 = c4_3 + a4_1.x * b4_3;
        c5_0 = c5_0 + a4_1.y * b4_0;
        c5_1 = c5_1 + a4_1.y * b4_1;
        c5_2 = c5_2 + a4_1.y * b4_2;
        c5_3 = c5_3 + a4_1.y * b4_3;
        c6_0 = c6_0 + a4_1.z * b4_0;
        c6_1 = c6_1 + a4_1.z * b4_1;
        c6_2 = c6_2 + a4_1.z * b4_2;
        c6_3 = c6_3 + a4_1.z * b4_3;
        c7_0 = c7_0 + a4_1.w * b4_0;
        c7_1 = c7_1 + a4_1.w * b4_1;
        c7_2 = c7_2 + a4_1.w * b4_2;
        c7_3 = c7_3 + a4_1.w * b4_3;
        let a5_0 = matmul_t128z_a[160u + lid.y];
        let a5_1 = matmul_t128z_a[176u + lid.y];
        let b5_0 = matmul_t128z_b[160u + lid.x];
        let b5_1 = matmul_t128z_b[168u + lid.x];
        let b5_2 = matmul_t128z_b[176u + lid.x];
        let b5_3 = matmul_t128z_b[184u + lid.x];
        c0_0 = c0_0 + a5_0.x * b5_0;
        c0_1 = c0_1 + a5_0.x * b5_1;
        c0_2 = c0_2 + a5_0.x * b5_2;
        c0_3 = c0_3 + a5_0.x * b5_3;
        c1_0 = c1_0 + a5_0.y * b5_0;
        c1_1 = c1_1 + a5_0.y * b5_1;
        c1_2 = c1_2 + a5_0.y * b5_2;
        c1_3 = c1_3 + a5_0.y * b5_3;
        c2_0 = c2_0 + a5_0.z * b5_0;
        c2_1 = c2_1 + a5_0.z * b5_1;
        c2_2 = c2_2 + a5_0.z * b5_2;
        c2_3 = c2_3 + a5_0.z * b5_3;
        c3_0 = c3_0 + a5_0.w * b5_0;
        c3_1 = c3_1 + a5_0.w * b5_1;
        c3_2 = c3_2 + a5_0.w * b5_2;
        c3_3 = c3_3 + a5_0.w * b5_3;
        c4_0 = c4_0 + a5_1.x * b5_0;
        c4_1 = c4_1 + a5_1.x * b5_1;
        c4_2 = c4_2 + a5_1.x * b5_2;
        c4_3 = c4_3 + a5_1.x * b5_3;
        c5_0 = c5_0 + a5_1.y * b5_0;
        c5_1 = c5_1 + a5_1.y * b5_1;
        c5_2 = c5_2 + a5_1.y * b5_2;
        c5_3 = c5_3 + a5_1.y * b5_3;
        c6_0 = c6_0 + a5_1.z * b5_0;
        c6_1 = c6_1 + a5_1.z * b5_1;
        c6_2 = c6_2 + a5_1.z * b5_2;
        c6_3 = c6_3 + a5_1.z * b5_3;
        c7_0 = c7_0 + a5_1.w * b5_0;
        c7_1 = c7_1 + a5_1.w * b5_1;
        c7_2 = c7_2 + a5_1.w * b5_2;
        c7_3 = c7_3 + a5_1.w * b5_3;
        let a6_0 = matmul_t128z_a[192u + lid.y];
        let a6_1 = matmul_t128z_a[208u + lid.y];
        let b6_0 = matmul_t128z_b[192u + lid.x];
        let b6_1 = matmul_t128z_b[200u + lid.x];
        let b6_2 = matmul_t128z_b[208u + lid.x];
        let b6_3 = matmul_t128z_b[216u + lid.x];
        c0_0 = c0_0 + a6_0.x * b6_0;
        c0_1 = c0_1 + a6_0.x * b6_1;
        c0_2 = c0_2 + a6_0.x * b6_2;
        c0_3 = c0_3 + a6_0.x * b6_3;
        c1_0 = c1_0 + a6_0.y * b6_0;
        c1_1 = c1_1 + a6_0.y * b6_1;
        c1_2 = c1_2 + a6_0.y * b6_2;
        c1_3 = c1_3 + a6_0.y * b6_3;
        c2_0 = c2_0 + a6_0.z * b6_0;
        c2_1 = c2_1 + a6_0.z * b6_1;
        c2_2 = c2_2 + a6_0.z * b6_2;
        c2_3 = c2_3 + a6_0.z * b6_3;
        c3_0 = c3_0 + a6_0.w * b6_0;
        c3_1 = c3_1 + a6_0.w * b6_1;
        c3_2 = c3_2 + a6_0.w * b6_2;
        c3_3 = c3_3 + a6_0.w * b6_3;
        c4_0 = c4_0 + a6_1.x * b6_0;
        c4_1 = c4_1 + a6_1.x * b6_1;
        c4_2 = c4_2 + a6_1.x * b6_2;
        c4_3 = c4_3 + a6_1.x * b6_3;
        c5_0 = c5_0 + a6_1.y * b6_0;
        c5_1 = c5_1 + a6_1.y * b6_1;
        c5_2 = c5_2 + a6_1.y * b6_2;
        c5_3 = c5_3 + a6_1.y * b6_3;
        c6_0 = c6_0 + a6_1.z * b6_0;
        c6_1 = c6_1 + a6_1.z * b6_1;
        c6_2 = c6_2 + a6_1.z * b6_2;
        c6_3 = c6_3 + a6_1.z * b6_3;
        c7_0 = c7_0 + a6_1.w * b6_0;
        c7_1 = c7_1 + a6_1.w * b6_1;
        c7_2 = c7_2 + a6_1.w * b6_2;
        c7_3 = c7_3 + a6_1.w * b6_3;
        let a7_0 = matmul_t128z_a[224u + lid.y];
        let a7_1 = matmul_t128z_a[240u + lid.y];
        let b7_0 = matmul_t128z_b[224u + lid.x];
        let b7_1 = matmul_t128z_b[232u + lid.x];
        let b7_2 = matmul_t128z_b[240u + lid.x];
        let b7_3 = matmul_t128z_b[248u + lid.x];
        c0_0 = c0_0 + a7_0.x * b7_0;
        c0_1 = c0_1 + a7_0.x * b7_1;
        c0_2 = c0_2 + a7_0.x * b7_2;
        c0_3 = c0_3 + a7_0.x * b7_3;
        c1_0 = c1_0 + a7_0.y * b7_0;
        c1_1 = c1_1 + a7_0.y * b7_1;
        c1_2 = c1_2 + a7_0.y * b7_2;
        c1_3 = c1_3 + a7_0.y * b7_3;
        c2_0 = c2_0 + a7_0.z * b7_0;
        c2_1 = c2_1 + a7_0.z * b7_1;
        c2_2 = c2_2 + a7_0.z * b7_2;
        c2_3 = c2_3 + a7_0.z * b7_3;
        c3_0 = c3_0 + a7_0.w * b7_0;
        c3_1 = c3_1 + a7_0.w * b7_1;
        c3_2 = c3_2 + a7_0.w * b7_2;
        c3_3 = c3_3 + a7_0.w * b7_3;
        c4_0 = c4_0 + a7_1.x * b7_0;
        c4_1 = c4_1 + a7_1.x * b7_1;
        c4_2 = c4_2 + a7_1.x * b7_2;
        c4_3 = c4_3 + a7_1.x * b7_3;
        c5_0 = c5_0 + a7_1.y * b7_0;
        c5_1 = c5_1 + a7_1.y * b7_1;
        c5_2 = c5_2 + a7_1.y * b7_2;
        c5_3 = c5_3 + a7_1.y * b7_3;
        c6_0 = c6_0 + a7_1.z * b7_0;
        c6_1 = c6_1 + a7_1.z * b7_1;
        c6_2 = c6_2 + a7_1.z * b7_2;
        c6_3 = c6_3 + a7_1.z * b7_3;
        c7_0 = c7_0 + a7_1.w * b7_0;
        c7_1 = c7_1 + a7_1.w * b7_1;
        c7_2 = c7_2 + a7_1.w * b7_2;
        c7_3 = c7_3 + a7_1.w * b7_3;
        workgroupBarrier();
    }
    if (row0 + (lid.y + 0u) * 4u + 0u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 0u) * n4 + col0 + lid.x + 0u] = c0_0; }
        if (col0 + lid.x + 8u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 0u) * n4 + col0 + lid.x + 8u] = c0_1; }
        if (col0 + lid.x + 16u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 0u) * n4 + col0 + lid.x + 16u] = c0_2; }
        if (col0 + lid.x + 24u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 0u) * n4 + col0 + lid.x + 24u] = c0_3; }
    }
    if (row0 + (lid.y + 0u) * 4u + 1u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 1u) * n4 + col0 + lid.x + 0u] = c1_0; }
        if (col0 + lid.x + 8u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 1u) * n4 + col0 + lid.x + 8u] = c1_1; }
        if (col0 + lid.x + 16u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 1u) * n4 + col0 + lid.x + 16u] = c1_2; }
        if (col0 + lid.x + 24u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 1u) * n4 + col0 + lid.x + 24u] = c1_3; }
    }
    if (row0 + (lid.y + 0u) * 4u + 2u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 2u) * n4 + col0 + lid.x + 0u] = c2_0; }
        if (col0 + lid.x + 8u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 2u) * n4 + col0 + lid.x + 8u] = c2_1; }
        if (col0 + lid.x + 16u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 2u) * n4 + col0 + lid.x + 16u] = c2_2; }
        if (col0 + lid.x + 24u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 2u) * n4 + col0 + lid.x + 24u] = c2_3; }
    }
    if (row0 + (lid.y + 0u) * 4u + 3u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 3u) * n4 + col0 + lid.x + 0u] = c3_0; }
        if (col0 + lid.x + 8u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 3u) * n4 + col0 + lid.x + 8u] = c3_1; }
        if (col0 + lid.x + 16u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 3u) * n4 + col0 + lid.x + 16u] = c3_2; }
        if (col0 + lid.x + 24u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 3u) * n4 + col0 + lid.x + 24u] = c3_3; }
    }
    if (row0 + (lid.y + 16u) * 4u + 0u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[zc + (row0 + (lid.y + 16u) * 4u + 0u) * n4 + col0 + lid.x + 0u] = c4_0; }
        if (col0 + lid.x + 8u < n4) { C4[zc + (row0 + (lid.y + 16u) * 4u + 0u) * n4 + col0 + lid.x + 8u] = c4_1; }
        if (col0 + lid.x + 16u < n4) { C4[zc + (row0 + (lid.y + 16u) * 4u + 0u) * n4 + col0 + lid.x + 16u] = c4_2; }
        if (col0 + lid.x + 24u < n4) { C4[zc + (row0 + (lid.y + 16u) * 4u + 0u) * n4 + col0 + lid.x + 24u] = c4_3; }
    }
    if (row0 + (lid.y + 16u) * 4u + 1u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[zc + (row0 + (lid.y + 16u) * 4u + 1u) * n4 + col0 + lid.x + 0u] = c5_0; }
        if (col0 + lid.x + 8u < n4) { C4[zc + (row0 + (lid.y + 16u) * 4u + 1u) * n4 + col0 + lid.x + 8u] = c5_1; }
        if (col0 + lid.x + 16u < n4) { C4[zc + (row0 + (lid.y + 16u) * 4u + 1u) * n4 + col0 + lid.x + 16u] = c5_2; }
        if (col0 + lid.x + 24u < n4) { C4[zc + (row0 + (lid.y + 16u) * 4u + 1u) * n4 + col0 + lid.x + 24u] = c5_3; }
    }
    if (row0 + (lid.y + 16u) * 4u + 2u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[zc + (row0 + (lid.y + 16u) * 4u + 2u) * n4 + col0 + lid.x + 0u] = c6_0; }
        if (col0 + lid.x + 8u < n4) { C4[zc + (row0 + (lid.y + 16u) * 4u + 2u) * n4 + col0 + lid.x + 8u] = c6_1; }
        if (col0 + lid.x + 16u < n4) { C4[zc + (row0 + (lid.y + 16u) * 4u + 2u) * n4 + col0 + lid.x + 16u] = c6_2; }
        if (col0 + lid.x + 24u < n4) { C4[zc + (row0 + (lid.y + 16u) * 4u + 2u) * n4 + col0 + lid.x + 24u] = c6_3; }
    }
    if (row0 + (lid.y + 16u) * 4u + 3u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[zc + (row0 + (lid.y + 16u) * 4u + 3u) * n4 + col0 + lid.x + 0u] = c7_0; }
        if (col0 + lid.x + 8u < n4) { C4[zc + (row0 + (lid.y + 16u) * 4u + 3u) * n4 + col0 + lid.x + 8u] = c7_1; }
        if (col0 + lid.x + 16u < n4) { C4[zc + (row0 + (lid.y + 16u) * 4u + 3u) * n4 + col0 + lid.x + 16u] = c7_2; }
        if (col0 + lid.x + 24u < n4) { C4[zc + (row0 + (lid.y + 16u) * 4u + 3u) * n4 + col0 + lid.x + 24u] = c7_3; }
    }
}

// C = A @ B when N and K are multiples of 4 (vec4 arrays), for GPUs. A workgroup of 16 x 16
// threads computes a 64 x 64 tile of C, each thread 4 rows x 4 columns in registers
// (rows lid.y * 4 + 64 * i, columns lid.x * 4 + 64 * j). K advances 16 at a time
// through workgroup memory, A's slice stored transposed; loads past the edges are zero, and the next
// slice's global loads are issued before the current one is multiplied.
var<workgroup> matmul_t64_a: array<vec4<f32>, 256>;  // [k * 16 + row / 4]
var<workgroup> matmul_t64_b: array<vec4<f32>, 256>;  // [k * 16 + column / 4]

@compute @workgroup_size(16, 16)
fn matmul_t64(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let n4 = dims.N / 4u;
    let k4 = dims.K / 4u;
    let row0 = wid.y * 64u;
    let col0 = wid.x * 16u;
    let t = lid.y * 16u + lid.x;
    var c0_0 = vec4<f32>(0.0);
    var c1_0 = vec4<f32>(0.0);
    var c2_0 = vec4<f32>(0.0);
    var c3_0 = vec4<f32>(0.0);
    let ar0 = (t + 0u) / 4u;
    let aq0 = (t + 0u) % 4u;
    let aok0 = row0 + ar0 < dims.M;
    let abase0 = (row0 + ar0) * k4 + aq0;
    var va0 = vec4<f32>(0.0);
    let bk0 = (t + 0u) / 16u;
    let bc0 = (t + 0u) % 16u;
    let bok0 = col0 + bc0 < n4;
    var vb0 = vec4<f32>(0.0);
    va0 = vec4<f32>(0.0);
    if (aok0 && 0u + aq0 < k4) { va0 = A4[abase0 + 0u]; }
    vb0 = vec4<f32>(0.0);
    if (bok0 && 0u * 4u + bk0 < dims.K) { vb0 = B4[(0u * 4u + bk0) * n4 + col0 + bc0]; }
    for (var k0 = 0u; k0 < k4; k0 = k0 + 4u) {
        matmul_t64_a[(aq0 * 4u + 0u) * 16u + ar0 / 4u][ar0 % 4u] = va0.x;
        matmul_t64_a[(aq0 * 4u + 1u) * 16u + ar0 / 4u][ar0 % 4u] = va0.y;
        matmul_t64_a[(aq0 * 4u + 2u) * 16u + ar0 / 4u][ar0 % 4u] = va0.z;
        matmul_t64_a[(aq0 * 4u + 3u) * 16u + ar0 / 4u][ar0 % 4u] = va0.w;
        matmul_t64_b[bk0 * 16u + bc0] = vb0;
        workgroupBarrier();
        let next = k0 + 4u;
        va0 = vec4<f32>(0.0);
        if (aok0 && next + aq0 < k4) { va0 = A4[abase0 + next]; }
        vb0 = vec4<f32>(0.0);
        if (bok0 && next * 4u + bk0 < dims.K) { vb0 = B4[(next * 4u + bk0) * n4 + col0 + bc0]; }
        let a0_0 = matmul_t64_a[0u + lid.y];
        let b0_0 = matmul_t64_b[0u + lid.x];
        c0_0 = c0_0 + a0_0.x * b0_0;
        c1_0 = c1_0 + a0_0.y * b0_0;
        c2_0 = c2_0 + a0_0.z * b0_0;
        c3_0 = c3_0 + a0_0.w * b0_0;
        let a1_0 = matmul_t64_a[16u + lid.y];
        let b1_0 = matmul_t64_b[16u + lid.x];
        c0_0 = c0_0 + a1_0.x * b1_0;
        c1_0 = c1_0 + a1_0.y * b1_0;
        c2_0 = c2_0 + a1_0.z * b1_0;
        c3_0 = c3_0 + a1_0.w * b1_0;
        let a2_0 = matmul_t64_a[32u + lid.y];
        let b2_0 = matmul_t64_b[32u + lid.x];
        c0_0 = c0_0 + a2_0.x * b2_0;
        c1_0 = c1_0 + a2_0.y * b2_0;
        c2_0 = c2_0 + a2_0.z * b2_0;
        c3_0 = c3_0 + a2_0.w * b2_0;
        let a3_0 = matmul_t64_a[48u + lid.y];
        let b3_0 = matmul_t64_b[48u + lid.x];
        c0_0 = c0_0 + a3_0.x * b3_0;
        c1_0 = c1_0 + a3_0.y * b3_0;
        c2_0 = c2_0 + a3_0.z * b3_0;
        c3_0 = c3_0 + a3_0.w * b3_0;
        let a4_0 = matmul_t64_a[64u + lid.y];
        let b4_0 = matmul_t64_b[64u + lid.x];
        c0_0 = c0_0 + a4_0.x * b4_0;
        c1_0 = c1_0 + a4_0.y * b4_0;
        c2_0 = c2_0 + a4_0.z * b4_0;
        c3_0 = c3_0 + a4_0.w * b4_0;
        let a5_0 = matmul_t64_a[80u + lid.y];
        let b5_0 = matmul_t64_b[80u + lid.x];
        c0_0 = c0_0 + a5_0.x * b5_0;
        c1_0 = c1_0 + a5_0.y * b5_0;
        c2_0 = c2_0 + a5_0.z * b5_0;
        c3_0 = c3_0 + a5_0.w * b5_0;
        let a6_0 = matmul_t64_a[96u + lid.y];
        let b6_0 = matmul_t64_b[96u + lid.x];
        c0_0 = c0_0 + a6_0.x * b6_0;
        c1_0 = c1_0 + a6_0.y * b6_0;
        c2_0 = c2_0 + a6_0.z * b6_0;
        c3_0 = c3_0 + a6_0.w * b6_0;
        let a7_0 = matmul_t64_a[112u + lid.y];
        let b7_0 = matmul_t64_b[112u + lid.x];
        c0_0 = c0_0 + a7_0.x * b7_0;
        c1_0 = c1_0 + a7_0.y * b7_0;
        c2_0 = c2_0 + a7_0.z * b7_0;
        c3_0 = c3_0 + a7_0.w * b7_0;
        let a8_0 = matmul_t64_a[128u + lid.y];
        let b8_0 = matmul_t64_b[128u + lid.x];
        c0_0 = c0_0 + a8_0.x * b8_0;
        c1_0 = c1_0 + a8_0.y * b8_0;
        c2_0 = c2_0 + a8_0.z * b8_0;
        c3_0 = c3_0 + a8_0.w * b8_0;
        let a9_0 = matmul_t64_a[144u + lid.y];
        let b9_0 = matmul_t64_b[144u + lid.x];
        c0_0 = c0_0 + a9_0.x * b9_0;
        c1_0 = c1_0 + a9_0.y * b9_0;
        c2_0 = c2_0 + a9_0.z * b9_0;
        c3_0 = c3_0 + a9_0.w * b9_0;
        let a10_0 = matmul_t64_a[160u + lid.y];
        let b10_0 = matmul_t64_b[160u + lid.x];
        c0_0 = c0_0 + a10_0.x * b10_0;
        c1_0 = c1_0 + a10_0.y * b10_0;
        c2_0 = c2_0 + a10_0.z * b10_0;
        c3_0 = c3_0 + a10_0.w * b10_0;
        let a11_0 = matmul_t64_a[176u + lid.y];
        let b11_0 = matmul_t64_b[176u + lid.x];
        c0_0 = c0_0 + a11_0.x * b11_0;
        c1_0 = c1_0 + a11_0.y * b11_0;
        c2_0 = c2_0 + a11_0.z * b11_0;
        c3_0 = c3_0 + a11_0.w * b11_0;
        let a12_0 = matmul_t64_a[192u + lid.y];
        let b12_0 = matmul_t64_b[192u + lid.x];
        c0_0 = c0_0 + a12_0.x * b12_0;
        c1_0 = c1_0 + a12_0.y * b12_0;
        c2_0 = c2_0 + a12_0.z * b12_0;
        c3_0 = c3_0 + a12_0.w * b12_0;
        let a13_0 = matmul_t64_a[208u + lid.y];
        let b13_0 = matmul_t64_b[208u + lid.x];
        c0_0 = c0_0 + a13_0.x * b13_0;
        c1_0 = c1_0 + a13_0.y * b13_0;
        c2_0 = c2_0 + a13_0.z * b13_0;
        c3_0 = c3_0 + a13_0.w * b13_0;
        let a14_0 = matmul_t64_a[224u + lid.y];
        let b14_0 = matmul_t64_b[224u + lid.x];
        c0_0 = c0_0 + a14_0.x * b14_0;
        c1_0 = c1_0 + a14_0.y * b14_0;
        c2_0 = c2_0 + a14_0.z * b14_0;
        c3_0 = c3_0 + a14_0.w * b14_0;
        let a15_0 = matmul_t64_a[240u + lid.y];
        let b15_0 = matmul_t64_b[240u + lid.x];
        c0_0 = c0_0 + a15_0.x * b15_0;
        c1_0 = c1_0 + a15_0.y * b15_0;
        c2_0 = c2_0 + a15_0.z * b15_0;
        c3_0 = c3_0 + a15_0.w * b15_0;
        workgroupBarrier();
    }
    if (row0 + (lid.y + 0u) * 4u + 0u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 0u) * n4 + col0 + lid.x + 0u] = c0_0; }
    }
    if (row0 + (lid.y + 0u) * 4u + 1u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 1u) * n4 + col0 + lid.x + 0u] = c1_0; }
    }
    if (row0 + (lid.y + 0u) * 4u + 2u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 2u) * n4 + col0 + lid.x + 0u] = c2_0; }
    }
    if (row0 + (lid.y + 0u) * 4u + 3u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 3u) * n4 + col0 + lid.x + 0u] = c3_0; }
    }
}

// C = A @ B when N and K are multiples of 4 (vec4 arrays), for GPUs. A workgroup of 16 x 16
// threads computes a 64 x 64 tile of C, each thread 4 rows x 4 columns in registers
// (rows lid.y * 4 + 64 * i, columns lid.x * 4 + 64 * j). K advances 16 at a time
// through workgroup memory, A's slice stored transposed; loads past the edges are zero, and the next
// slice's global loads are issued before the current one is multiplied.
var<workgroup> matmul_t64z_a: array<vec4<f32>, 256>;  // [k * 16 + row / 4]
var<workgroup> matmul_t64z_b: array<vec4<f32>, 256>;  // [k * 16 + column / 4]

@compute @workgroup_size(16, 16)
fn matmul_t64z(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let n4 = dims.N / 4u;
    let k4 = dims.K / 4u;
    let row0 = wid.y * 64u;
    let col0 = wid.x * 16u;
    let t = lid.y * 16u + lid.x;
    // workgroups along z: a product each (a batch) or a slice of K each (partial products);
    // their vec4 offsets into A, B and C, and the vec4s of K each sums (0: all of K)
    let za = wid.z * dims.a_z;
    let zb = wid.z * dims.b_z;
    let zc = wid.z * dims.c_z;
    let kn = select(k4, min(dims.k_z, k4 - min(k4, wid.z * dims.k_z)), dims.k_z != 0u);
    var c0_0 = vec4<f32>(0.0);
    var c1_0 = vec4<f32>(0.0);
    var c2_0 = vec4<f32>(0.0);
    var c3_0 = vec4<f32>(0.0);
    let ar0 = (t + 0u) / 4u;
    let aq0 = (t + 0u) % 4u;
    let aok0 = row0 + ar0 < dims.M;
    let abase0 = za + (row0 + ar0) * k4 + aq0;
    var va0 = vec4<f32>(0.0);
    let bk0 = (t + 0u) / 16u;
    let bc0 = (t + 0u) % 16u;
    let bok0 = col0 + bc0 < n4;
    let bbase0 = zb + bk0 * n4 + col0 + bc0;
    var vb0 = vec4<f32>(0.0);
    va0 = vec4<f32>(0.0);
    if (aok0 && 0u + aq0 < kn) { va0 = A4[abase0 + 0u]; }
    vb0 = vec4<f32>(0.0);
    if (bok0 && 0u * 4u + bk0 < kn * 4u) { vb0 = B4[bbase0 + 0u * 4u * n4]; }
    for (var k0 = 0u; k0 < kn; k0 = k0 + 4u) {
        matmul_t64z_a[(aq0 * 4u + 0u) * 16u + ar0 / 4u][ar0 % 4u] = va0.x;
        matmul_t64z_a[(aq0 * 4u + 1u) * 16u + ar0 / 4u][ar0 % 4u] = va0.y;
        matmul_t64z_a[(aq0 * 4u + 2u) * 16u + ar0 / 4u][ar0 % 4u] = va0.z;
        matmul_t64z_a[(aq0 * 4u + 3u) * 16u + ar0 / 4u][ar0 % 4u] = va0.w;
        matmul_t64z_b[bk0 * 16u + bc0] = vb0;
        workgroupBarrier();
        let next = k0 + 4u;
        va0 = vec4<f32>(0.0);
        if (aok0 && next + aq0 < kn) { va0 = A4[abase0 + next]; }
        vb0 = vec4<f32>(0.0);
        if (bok0 && next * 4u + bk0 < kn * 4u) { vb0 = B4[bbase0 + next * 4u * n4]; }
        let a0_0 = matmul_t64z_a[0u + lid.y];
        let b0_0 = matmul_t64z_b[0u + lid.x];
        c0_0 = c0_0 + a0_0.x * b0_0;
        c1_0 = c1_0 + a0_0.y * b0_0;
        c2_0 = c2_0 + a0_0.z * b0_0;
        c3_0 = c3_0 + a0_0.w * b0_0;
        let a1_0 = matmul_t64z_a[16u + lid.y];
        let b1_0 = matmul_t64z_b[16u + lid.x];
        c0_0 = c0_0 + a1_0.x * b1_0;
        c1_0 = c1_0 + a1_0.y * b1_0;
        c2_0 = c2_0 + a1_0.z * b1_0;
        c3_0 = c3_0 + a1_0.w * b1_0;
        let a2_0 = matmul_t64z_a[32u + lid.y];
        let b2_0 = matmul_t64z_b[32u + lid.x];
        c0_0 = c0_0 + a2_0.x * b2_0;
        c1_0 = c1_0 + a2_0.y * b2_0;
        c2_0 = c2_0 + a2_0.z * b2_0;
        c3_0 = c3_0 + a2_0.w * b2_0;
        let a3_0 = matmul_t64z_a[48u + lid.y];
        let b3_0 = matmul_t64z_b[48u + lid.x];
        c0_0 = c0_0 + a3_0.x * b3_0;
        c1_0 = c1_0 + a3_0.y * b3_0;
        c2_0 = c2_0 + a3_0.z * b3_0;
        c3_0 = c3_0 + a3_0.w * b3_0;
        let a4_0 = matmul_t64z_a[64u + lid.y];
        let b4_0 = matmul_t64z_b[64u + lid.x];
        c0_0 = c0_0 + a4_0.x * b4_0;
        c1_0 = c1_0 + a4_0.y * b4_0;
        c2_0 = c2_0 + a4_0.z * b4_0;
        c3_0 = c3_0 + a4_0.w * b4_0;
        let a5_0 = matmul_t64z_a[80u + lid.y];
        let b5_0 = matmul_t64z_b[80u + lid.x];
        c0_0 = c0_0 + a5_0.x * b5_0;
        c1_0 = c1_0 + a5_0.y * b5_0;
        c2_0 = c2_0 + a5_0.z * b5_0;
        c3_0 = c3_0 + a5_0.w * b5_0;
        let a6_0 = matmul_t64z_a[96u + lid.y];
        let b6_0 = matmul_t64z_b[96u + lid.x];
        c0_0 = c0_0 + a6_0.x * b6_0;
        c1_0 = c1_0 + a6_0.y * b6_0;
        c2_0 = c2_0 + a6_0.z * b6_0;
        c3_0 = c3_0 + a6_0.w * b6_0;
        let a7_0 = matmul_t64z_a[112u + lid.y];
        let b7_0 = matmul_t64z_b[112u + lid.x];
        c0_0 = c0_0 + a7_0.x * b7_0;
        c1_0 = c1_0 + a7_0.y * b7_0;
        c2_0 = c2_0 + a7_0.z * b7_0;
        c3_0 = c3_0 + a7_0.w * b7_0;
        let a8_0 = matmul_t64z_a[128u + lid.y];
        let b8_0 = matmul_t64z_b[128u + lid.x];
        c0_0 = c0_0 + a8_0.x * b8_0;
        c1_0 = c1_0 + a8_0.y * b8_0;
        c2_0 = c2_0 + a8_0.z * b8_0;
        c3_0 = c3_0 + a8_0.w * b8_0;
        let a9_0 = matmul_t64z_a[144u + lid.y];
        let b9_0 = matmul_t64z_b[144u + lid.x];
        c0_0 = c0_0 + a9_0.x * b9_0;
        c1_0 = c1_0 + a9_0.y * b9_0;
        c2_0 = c2_0 + a9_0.z * b9_0;
        c3_0 = c3_0 + a9_0.w * b9_0;
        let a10_0 = matmul_t64z_a[160u + lid.y];
        let b10_0 = matmul_t64z_b[160u + lid.x];
        c0_0 = c0_0 + a10_0.x * b10_0;
        c1_0 = c1_0 + a10_0.y * b10_0;
        c2_0 = c2_0 + a10_0.z * b10_0;
        c3_0 = c3_0 + a10_0.w * b10_0;
        let a11_0 = matmul_t64z_a[176u + lid.y];
        let b11_0 = matmul_t64z_b[176u + lid.x];
        c0_0 = c0_0 + a11_0.x * b11_0;
        c1_0 = c1_0 + a11_0.y * b11_0;
        c2_0 = c2_0 + a11_0.z * b11_0;
        c3_0 = c3_0 + a11_0.w * b11_0;
        let a12_0 = matmul_t64z_a[192u + lid.y];
        let b12_0 = matmul_t64z_b[192u + lid.x];
        c0_0 = c0_0 + a12_0.x * b12_0;
        c1_0 = c1_0 + a12_0.y * b12_0;
        c2_0 = c2_0 + a12_0.z * b12_0;
        c3_0 = c3_0 + a12_0.w * b12_0;
        let a13_0 = matmul_t64z_a[208u + lid.y];
        let b13_0 = matmul_t64z_b[208u + lid.x];
        c0_0 = c0_0 + a13_0.x * b13_0;
        c1_0 = c1_0 + a13_0.y * b13_0;
        c2_0 = c2_0 + a13_0.z * b13_0;
        c3_0 = c3_0 + a13_0.w * b13_0;
        let a14_0 = matmul_t64z_a[224u + lid.y];
        let b14_0 = matmul_t64z_b[224u + lid.x];
        c0_0 = c0_0 + a14_0.x * b14_0;
        c1_0 = c1_0 + a14_0.y * b14_0;
        c2_0 = c2_0 + a14_0.z * b14_0;
        c3_0 = c3_0 + a14_0.w * b14_0;
        let a15_0 = matmul_t64z_a[240u + lid.y];
        let b15_0 = matmul_t64z_b[240u + lid.x];
        c0_0 = c0_0 + a15_0.x * b15_0;
        c1_0 = c1_0 + a15_0.y * b15_0;
        c2_0 = c2_0 + a15_0.z * b15_0;
        c3_0 = c3_0 + a15_0.w * b15_0;
        workgroupBarrier();
    }
    if (row0 + (lid.y + 0u) * 4u + 0u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 0u) * n4 + col0 + lid.x + 0u] = c0_0; }
    }
    if (row0 + (lid.y + 0u) * 4u + 1u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 1u) * n4 + col0 + lid.x + 0u] = c1_0; }
    }
    if (row0 + (lid.y + 0u) * 4u + 2u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 2u) * n4 + col0 + lid.x + 0u] = c2_0; }
    }
    if (row0 + (lid.y + 0u) * 4u + 3u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 3u) * n4 + col0 + lid.x + 0u] = c3_0; }
    }
}

// C = A @ B when N and K are multiples of 4 (vec4 arrays), for GPUs. A workgroup of 8 x 8
// threads computes a 32 x 32 tile of C, each thread 4 rows x 4 columns in registers
// (rows lid.y * 4 + 32 * i, columns lid.x * 4 + 32 * j). K advances 16 at a time
// through workgroup memory, A's slice stored transposed; loads past the edges are zero, and the next
// slice's global loads are issued before the current one is multiplied.
var<workgroup> matmul_t32_a: array<vec4<f32>, 128>;  // [k * 8 + row / 4]
var<workgroup> matmul_t32_b: array<vec4<f32>, 128>;  // [k * 8 + column / 4]

@compute @workgroup_size(8, 8)
fn matmul_t32(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let n4 = dims.N / 4u;
    let k4 = dims.K / 4u;
    let row0 = wid.y * 32u;
    let col0 = wid.x * 8u;
    let t = lid.y * 8u + lid.x;
    var c0_0 = vec4<f32>(0.0);
    var c1_0 = vec4<f32>(0.0);
    var c2_0 = vec4<f32>(0.0);
    var c3_0 = vec4<f32>(0.0);
    let ar0 = (t + 0u) / 4u;
    let aq0 = (t + 0u) % 4u;
    let aok0 = row0 + ar0 < dims.M;
    let abase0 = (row0 + ar0) * k4 + aq0;
    var va0 = vec4<f32>(0.0);
    let ar1 = (t + 64u) / 4u;
    let aq1 = (t + 64u) % 4u;
    let aok1 = row0 + ar1 < dims.M;
    let abase1 = (row0 + ar1) * k4 + aq1;
    var va1 = vec4<f32>(0.0);
    let bk0 = (t + 0u) / 8u;
    let bc0 = (t + 0u) % 8u;
    let bok0 = col0 + bc0 < n4;
    var vb0 = vec4<f32>(0.0);
    let bk1 = (t + 64u) / 8u;
    let bc1 = (t + 64u) % 8u;
    let bok1 = col0 + bc1 < n4;
    var vb1 = vec4<f32>(0.0);
    va0 = vec4<f32>(0.0);
    if (aok0 && 0u + aq0 < k4) { va0 = A4[abase0 + 0u]; }
    va1 = vec4<f32>(0.0);
    if (aok1 && 0u + aq1 < k4) { va1 = A4[abase1 + 0u]; }
    vb0 = vec4<f32>(0.0);
    if (bok0 && 0u * 4u + bk0 < dims.K) { vb0 = B4[(0u * 4u + bk0) * n4 + col0 + bc0]; }
    vb1 = vec4<f32>(0.0);
    if (bok1 && 0u * 4u + bk1 < dims.K) { vb1 = B4[(0u * 4u + bk1) * n4 + col0 + bc1]; }
    for (var k0 = 0u; k0 < k4; k0 = k0 + 4u) {
        matmul_t32_a[(aq0 * 4u + 0u) * 8u + ar0 / 4u][ar0 % 4u] = va0.x;
        matmul_t32_a[(aq0 * 4u + 1u) * 8u + ar0 / 4u][ar0 % 4u] = va0.y;
        matmul_t32_a[(aq0 * 4u + 2u) * 8u + ar0 / 4u][ar0 % 4u] = va0.z;
        matmul_t32_a[(aq0 * 4u + 3u) * 8u + ar0 / 4u][ar0 % 4u] = va0.w;
        matmul_t32_a[(aq1 * 4u + 0u) * 8u + ar1 / 4u][ar1 % 4u] = va1.x;
        matmul_t32_a[(aq1 * 4u + 1u) * 8u + ar1 / 4u][ar1 % 4u] = va1.y;
        matmul_t32_a[(aq1 * 4u + 2u) * 8u + ar1 / 4u][ar1 % 4u] = va1.z;
        matmul_t32_a[(aq1 * 4u + 3u) * 8u + ar1 / 4u][ar1 % 4u] = va1.w;
        matmul_t32_b[bk0 * 8u + bc0] = vb0;
        matmul_t32_b[bk1 * 8u + bc1] = vb1;
        workgroupBarrier();
        let next = k0 + 4u;
        va0 = vec4<f32>(0.0);
        if (aok0 && next + aq0 < k4) { va0 = A4[abase0 + next]; }
        va1 = vec4<f32>(0.0);
        if (aok1 && next + aq1 < k4) { va1 = A4[abase1 + next]; }
        vb0 = vec4<f32>(0.0);
        if (bok0 && next * 4u + bk0 < dims.K) { vb0 = B4[(next * 4u + bk0) * n4 + col0 + bc0]; }
        vb1 = vec4<f32>(0.0);
        if (bok1 && next * 4u + bk1 < dims.K) { vb1 = B4[(next * 4u + bk1) * n4 + col0 + bc1]; }
        let a0_0 = matmul_t32_a[0u + lid.y];
        let b0_0 = matmul_t32_b[0u + lid.x];
        c0_0 = c0_0 + a0_0.x * b0_0;
        c1_0 = c1_0 + a0_0.y * b0_0;
        c2_0 = c2_0 + a0_0.z * b0_0;
        c3_0 = c3_0 + a0_0.w * b0_0;
        let a1_0 = matmul_t32_a[8u + lid.y];
        let b1_0 = matmul_t32_b[8u + lid.x];
        c0_0 = c0_0 + a1_0.x * b1_0;
        c1_0 = c1_0 + a1_0.y * b1_0;
        c2_0 = c2_0 + a1_0.z * b1_0;
        c3_0 = c3_0 + a1_0.w * b1_0;
        let a2_0 = matmul_t32_a[16u + lid.y];
        let b2_0 = matmul_t32_b[16u + lid.x];
        c0_0 = c0_0 + a2_0.x * b2_0;
        c1_0 = c1_0 + a2_0.y * b2_0;
        c2_0 = c2_0 + a2_0.z * b2_0;
        c3_0 = c3_0 + a2_0.w * b2_0;
        let a3_0 = matmul_t32_a[24u + lid.y];
        let b3_0 = matmul_t32_b[24u + lid.x];
        c0_0 = c0_0 + a3_0.x * b3_0;
        c1_0 = c1_0 + a3_0.y * b3_0;
        c2_0 = c2_0 + a3_0.z * b3_0;
        c3_0 = c3_0 + a3_0.w * b3_0;
        let a4_0 = matmul_t32_a[32u + lid.y];
        let b4_0 = matmul_t32_b[32u + lid.x];
        c0_0 = c0_0 + a4_0.x * b4_0;
        c1_0 = c1_0 + a4_0.y * b4_0;
        c2_0 = c2_0 + a4_0.z * b4_0;
        c3_0 = c3_0 + a4_0.w * b4_0;
        let a5_0 = matmul_t32_a[40u + lid.y];
        let b5_0 = matmul_t32_b[40u + lid.x];
        c0_0 = c0_0 + a5_0.x * b5_0;
        c1_0 = c1_0 + a5_0.y * b5_0;
        c2_0 = c2_0 + a5_0.z * b5_0;
        c3_0 = c3_0 + a5_0.w * b5_0;
        let a6_0 = matmul_t32_a[48u + lid.y];
        let b6_0 = matmul_t32_b[48u + lid.x];
        c0_0 = c0_0 + a6_0.x * b6_0;
        c1_0 = c1_0 + a6_0.y * b6_0;
        c2_0 = c2_0 + a6_0.z * b6_0;
        c3_0 = c3_0 + a6_0.w * b6_0;
        let a7_0 = matmul_t32_a[56u + lid.y];
        let b7_0 = matmul_t32_b[56u + lid.x];
        c0_0 = c0_0 + a7_0.x * b7_0;
        c1_0 = c1_0 + a7_0.y * b7_0;
        c2_0 = c2_0 + a7_0.z * b7_0;
        c3_0 = c3_0 + a7_0.w * b7_0;
        let a8_0 = matmul_t32_a[64u + lid.y];
        let b8_0 = matmul_t32_b[64u + lid.x];
        c0_0 = c0_0 + a8_0.x * b8_0;
        c1_0 = c1_0 + a8_0.y * b8_0;
        c2_0 = c2_0 + a8_0.z * b8_0;
        c3_0 = c3_0 + a8_0.w * b8_0;
        let a9_0 = matmul_t32_a[72u + lid.y];
        let b9_0 = matmul_t32_b[72u + lid.x];
        c0_0 = c0_0 + a9_0.x * b9_0;
        c1_0 = c1_0 + a9_0.y * b9_0;
        c2_0 = c2_0 + a9_0.z * b9_0;
        c3_0 = c3_0 + a9_0.w * b9_0;
        let a10_0 = matmul_t32_a[80u + lid.y];
        let b10_0 = matmul_t32_b[80u + lid.x];
        c0_0 = c0_0 + a10_0.x * b10_0;
        c1_0 = c1_0 + a10_0.y * b10_0;
        c2_0 = c2_0 + a10_0.z * b10_0;
        c3_0 = c3_0 + a10_0.w * b10_0;
        let a11_0 = matmul_t32_a[88u + lid.y];
        let b11_0 = matmul_t32_b[88u + lid.x];
        c0_0 = c0_0 + a11_0.x * b11_0;
        c1_0 = c1_0 + a11_0.y * b11_0;
        c2_0 = c2_0 + a11_0.z * b11_0;
        c3_0 = c3_0 + a11_0.w * b11_0;
        let a12_0 = matmul_t32_a[96u + lid.y];
        let b12_0 = matmul_t32_b[96u + lid.x];
        c0_0 = c0_0 + a12_0.x * b12_0;
        c1_0 = c1_0 + a12_0.y * b12_0;
        c2_0 = c2_0 + a12_0.z * b12_0;
        c3_0 = c3_0 + a12_0.w * b12_0;
        let a13_0 = matmul_t32_a[104u + lid.y];
        let b13_0 = matmul_t32_b[104u + lid.x];
        c0_0 = c0_0 + a13_0.x * b13_0;
        c1_0 = c1_0 + a13_0.y * b13_0;
        c2_0 = c2_0 + a13_0.z * b13_0;
        c3_0 = c3_0 + a13_0.w * b13_0;
        let a14_0 = matmul_t32_a[112u + lid.y];
        let b14_0 = matmul_t32_b[112u + lid.x];
        c0_0 = c0_0 + a14_0.x * b14_0;
        c1_0 = c1_0 + a14_0.y * b14_0;
        c2_0 = c2_0 + a14_0.z * b14_0;
        c3_0 = c3_0 + a14_0.w * b14_0;
        let a15_0 = matmul_t32_a[120u + lid.y];
        let b15_0 = matmul_t32_b[120u + lid.x];
        c0_0 = c0_0 + a15_0.x * b15_0;
        c1_0 = c1_0 + a15_0.y * b15_0;
        c2_0 = c2_0 + a15_0.z * b15_0;
        c3_0 = c3_0 + a15_0.w * b15_0;
        workgroupBarrier();
    }
    if (row0 + (lid.y + 0u) * 4u + 0u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 0u) * n4 + col0 + lid.x + 0u] = c0_0; }
    }
    if (row0 + (lid.y + 0u) * 4u + 1u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 1u) * n4 + col0 + lid.x + 0u] = c1_0; }
    }
    if (row0 + (lid.y + 0u) * 4u + 2u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 2u) * n4 + col0 + lid.x + 0u] = c2_0; }
    }
    if (row0 + (lid.y + 0u) * 4u + 3u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[(row0 + (lid.y + 0u) * 4u + 3u) * n4 + col0 + lid.x + 0u] = c3_0; }
    }
}

// C = A @ B when N and K are multiples of 4 (vec4 arrays), for GPUs. A workgroup of 8 x 8
// threads computes a 32 x 32 tile of C, each thread 4 rows x 4 columns in registers
// (rows lid.y * 4 + 32 * i, columns lid.x * 4 + 32 * j). K advances 16 at a time
// through workgroup memory, A's slice stored transposed; loads past the edges are zero, and the next
// slice's global loads are issued before the current one is multiplied.
var<workgroup> matmul_t32z_a: array<vec4<f32>, 128>;  // [k * 8 + row / 4]
var<workgroup> matmul_t32z_b: array<vec4<f32>, 128>;  // [k * 8 + column / 4]

@compute @workgroup_size(8, 8)
fn matmul_t32z(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let n4 = dims.N / 4u;
    let k4 = dims.K / 4u;
    let row0 = wid.y * 32u;
    let col0 = wid.x * 8u;
    let t = lid.y * 8u + lid.x;
    // workgroups along z: a product each (a batch) or a slice of K each (partial products);
    // their vec4 offsets into A, B and C, and the vec4s of K each sums (0: all of K)
    let za = wid.z * dims.a_z;
    let zb = wid.z * dims.b_z;
    let zc = wid.z * dims.c_z;
    let kn = select(k4, min(dims.k_z, k4 - min(k4, wid.z * dims.k_z)), dims.k_z != 0u);
    var c0_0 = vec4<f32>(0.0);
    var c1_0 = vec4<f32>(0.0);
    var c2_0 = vec4<f32>(0.0);
    var c3_0 = vec4<f32>(0.0);
    let ar0 = (t + 0u) / 4u;
    let aq0 = (t + 0u) % 4u;
    let aok0 = row0 + ar0 < dims.M;
    let abase0 = za + (row0 + ar0) * k4 + aq0;
    var va0 = vec4<f32>(0.0);
    let ar1 = (t + 64u) / 4u;
    let aq1 = (t + 64u) % 4u;
    let aok1 = row0 + ar1 < dims.M;
    let abase1 = za + (row0 + ar1) * k4 + aq1;
    var va1 = vec4<f32>(0.0);
    let bk0 = (t + 0u) / 8u;
    let bc0 = (t + 0u) % 8u;
    let bok0 = col0 + bc0 < n4;
    let bbase0 = zb + bk0 * n4 + col0 + bc0;
    var vb0 = vec4<f32>(0.0);
    let bk1 = (t + 64u) / 8u;
    let bc1 = (t + 64u) % 8u;
    let bok1 = col0 + bc1 < n4;
    let bbase1 = zb + bk1 * n4 + col0 + bc1;
    var vb1 = vec4<f32>(0.0);
    va0 = vec4<f32>(0.0);
    if (aok0 && 0u + aq0 < kn) { va0 = A4[abase0 + 0u]; }
    va1 = vec4<f32>(0.0);
    if (aok1 && 0u + aq1 < kn) { va1 = A4[abase1 + 0u]; }
    vb0 = vec4<f32>(0.0);
    if (bok0 && 0u * 4u + bk0 < kn * 4u) { vb0 = B4[bbase0 + 0u * 4u * n4]; }
    vb1 = vec4<f32>(0.0);
    if (bok1 && 0u * 4u + bk1 < kn * 4u) { vb1 = B4[bbase1 + 0u * 4u * n4]; }
    for (var k0 = 0u; k0 < kn; k0 = k0 + 4u) {
        matmul_t32z_a[(aq0 * 4u + 0u) * 8u + ar0 / 4u][ar0 % 4u] = va0.x;
        matmul_t32z_a[(aq0 * 4u + 1u) * 8u + ar0 / 4u][ar0 % 4u] = va0.y;
        matmul_t32z_a[(aq0 * 4u + 2u) * 8u + ar0 / 4u][ar0 % 4u] = va0.z;
        matmul_t32z_a[(aq0 * 4u + 3u) * 8u + ar0 / 4u][ar0 % 4u] = va0.w;
        matmul_t32z_a[(aq1 * 4u + 0u) * 8u + ar1 / 4u][ar1 % 4u] = va1.x;
        matmul_t32z_a[(aq1 * 4u + 1u) * 8u + ar1 / 4u][ar1 % 4u] = va1.y;
        matmul_t32z_a[(aq1 * 4u + 2u) * 8u + ar1 / 4u][ar1 % 4u] = va1.z;
        matmul_t32z_a[(aq1 * 4u + 3u) * 8u + ar1 / 4u][ar1 % 4u] = va1.w;
        matmul_t32z_b[bk0 * 8u + bc0] = vb0;
        matmul_t32z_b[bk1 * 8u + bc1] = vb1;
        workgroupBarrier();
        let next = k0 + 4u;
        va0 = vec4<f32>(0.0);
        if (aok0 && next + aq0 < kn) { va0 = A4[abase0 + next]; }
        va1 = vec4<f32>(0.0);
        if (aok1 && next + aq1 < kn) { va1 = A4[abase1 + next]; }
        vb0 = vec4<f32>(0.0);
        if (bok0 && next * 4u + bk0 < kn * 4u) { vb0 = B4[bbase0 + next * 4u * n4]; }
        vb1 = vec4<f32>(0.0);
        if (bok1 && next * 4u + bk1 < kn * 4u) { vb1 = B4[bbase1 + next * 4u * n4]; }
        let a0_0 = matmul_t32z_a[0u + lid.y];
        let b0_0 = matmul_t32z_b[0u + lid.x];
        c0_0 = c0_0 + a0_0.x * b0_0;
        c1_0 = c1_0 + a0_0.y * b0_0;
        c2_0 = c2_0 + a0_0.z * b0_0;
        c3_0 = c3_0 + a0_0.w * b0_0;
        let a1_0 = matmul_t32z_a[8u + lid.y];
        let b1_0 = matmul_t32z_b[8u + lid.x];
        c0_0 = c0_0 + a1_0.x * b1_0;
        c1_0 = c1_0 + a1_0.y * b1_0;
        c2_0 = c2_0 + a1_0.z * b1_0;
        c3_0 = c3_0 + a1_0.w * b1_0;
        let a2_0 = matmul_t32z_a[16u + lid.y];
        let b2_0 = matmul_t32z_b[16u + lid.x];
        c0_0 = c0_0 + a2_0.x * b2_0;
        c1_0 = c1_0 + a2_0.y * b2_0;
        c2_0 = c2_0 + a2_0.z * b2_0;
        c3_0 = c3_0 + a2_0.w * b2_0;
        let a3_0 = matmul_t32z_a[24u + lid.y];
        let b3_0 = matmul_t32z_b[24u + lid.x];
        c0_0 = c0_0 + a3_0.x * b3_0;
        c1_0 = c1_0 + a3_0.y * b3_0;
        c2_0 = c2_0 + a3_0.z * b3_0;
        c3_0 = c3_0 + a3_0.w * b3_0;
        let a4_0 = matmul_t32z_a[32u + lid.y];
        let b4_0 = matmul_t32z_b[32u + lid.x];
        c0_0 = c0_0 + a4_0.x * b4_0;
        c1_0 = c1_0 + a4_0.y * b4_0;
        c2_0 = c2_0 + a4_0.z * b4_0;
        c3_0 = c3_0 + a4_0.w * b4_0;
        let a5_0 = matmul_t32z_a[40u + lid.y];
        let b5_0 = matmul_t32z_b[40u + lid.x];
        c0_0 = c0_0 + a5_0.x * b5_0;
        c1_0 = c1_0 + a5_0.y * b5_0;
        c2_0 = c2_0 + a5_0.z * b5_0;
        c3_0 = c3_0 + a5_0.w * b5_0;
        let a6_0 = matmul_t32z_a[48u + lid.y];
        let b6_0 = matmul_t32z_b[48u + lid.x];
        c0_0 = c0_0 + a6_0.x * b6_0;
        c1_0 = c1_0 + a6_0.y * b6_0;
        c2_0 = c2_0 + a6_0.z * b6_0;
        c3_0 = c3_0 + a6_0.w * b6_0;
        let a7_0 = matmul_t32z_a[56u + lid.y];
        let b7_0 = matmul_t32z_b[56u + lid.x];
        c0_0 = c0_0 + a7_0.x * b7_0;
        c1_0 = c1_0 + a7_0.y * b7_0;
        c2_0 = c2_0 + a7_0.z * b7_0;
        c3_0 = c3_0 + a7_0.w * b7_0;
        let a8_0 = matmul_t32z_a[64u + lid.y];
        let b8_0 = matmul_t32z_b[64u + lid.x];
        c0_0 = c0_0 + a8_0.x * b8_0;
        c1_0 = c1_0 + a8_0.y * b8_0;
        c2_0 = c2_0 + a8_0.z * b8_0;
        c3_0 = c3_0 + a8_0.w * b8_0;
        let a9_0 = matmul_t32z_a[72u + lid.y];
        let b9_0 = matmul_t32z_b[72u + lid.x];
        c0_0 = c0_0 + a9_0.x * b9_0;
        c1_0 = c1_0 + a9_0.y * b9_0;
        c2_0 = c2_0 + a9_0.z * b9_0;
        c3_0 = c3_0 + a9_0.w * b9_0;
        let a10_0 = matmul_t32z_a[80u + lid.y];
        let b10_0 = matmul_t32z_b[80u + lid.x];
        c0_0 = c0_0 + a10_0.x * b10_0;
        c1_0 = c1_0 + a10_0.y * b10_0;
        c2_0 = c2_0 + a10_0.z * b10_0;
        c3_0 = c3_0 + a10_0.w * b10_0;
        let a11_0 = matmul_t32z_a[88u + lid.y];
        let b11_0 = matmul_t32z_b[88u + lid.x];
        c0_0 = c0_0 + a11_0.x * b11_0;
        c1_0 = c1_0 + a11_0.y * b11_0;
        c2_0 = c2_0 + a11_0.z * b11_0;
        c3_0 = c3_0 + a11_0.w * b11_0;
        let a12_0 = matmul_t32z_a[96u + lid.y];
        let b12_0 = matmul_t32z_b[96u + lid.x];
        c0_0 = c0_0 + a12_0.x * b12_0;
        c1_0 = c1_0 + a12_0.y * b12_0;
        c2_0 = c2_0 + a12_0.z * b12_0;
        c3_0 = c3_0 + a12_0.w * b12_0;
        let a13_0 = matmul_t32z_a[104u + lid.y];
        let b13_0 = matmul_t32z_b[104u + lid.x];
        c0_0 = c0_0 + a13_0.x * b13_0;
        c1_0 = c1_0 + a13_0.y * b13_0;
        c2_0 = c2_0 + a13_0.z * b13_0;
        c3_0 = c3_0 + a13_0.w * b13_0;
        let a14_0 = matmul_t32z_a[112u + lid.y];
        let b14_0 = matmul_t32z_b[112u + lid.x];
        c0_0 = c0_0 + a14_0.x * b14_0;
        c1_0 = c1_0 + a14_0.y * b14_0;
        c2_0 = c2_0 + a14_0.z * b14_0;
        c3_0 = c3_0 + a14_0.w * b14_0;
        let a15_0 = matmul_t32z_a[120u + lid.y];
        let b15_0 = matmul_t32z_b[120u + lid.x];
        c0_0 = c0_0 + a15_0.x * b15_0;
        c1_0 = c1_0 + a15_0.y * b15_0;
        c2_0 = c2_0 + a15_0.z * b15_0;
        c3_0 = c3_0 + a15_0.w * b15_0;
        workgroupBarrier();
    }
    if (row0 + (lid.y + 0u) * 4u + 0u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 0u) * n4 + col0 + lid.x + 0u] = c0_0; }
    }
    if (row0 + (lid.y + 0u) * 4u + 1u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 1u) * n4 + col0 + lid.x + 0u] = c1_0; }
    }
    if (row0 + (lid.y + 0u) * 4u + 2u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 2u) * n4 + col0 + lid.x + 0u] = c2_0; }
    }
    if (row0 + (lid.y + 0u) * 4u + 3u < dims.M) {
        if (col0 + lid.x + 0u < n4) { C4[zc + (row0 + (lid.y + 0u) * 4u + 3u) * n4 + col0 + lid.x + 0u] = c3_0; }
    }
}
// ---- generated by scripts/matmul_wgsl.py: end
