// C = A @ B for row-major A (M x K), B (K x N), C (M x N), any M, N, K.
//
// Register-blocked: each thread computes a 4 x 4 block of C held in four vec4 accumulators, and
// an 8 x 8-thread workgroup covers a 32 x 32 tile. K advances 4 at a time: one vec4 of A per row
// and four vec4 rows of B feed 64 multiply-adds. No workgroup memory or barriers: on SwiftShader
// (and other CPU-like adapters) barriers cost more than the reloads they save.
// Edges: rows past M are clamped for loading (their results are not stored), columns past N load
// as zero, and stores are bounds-checked, so no dimension needs to be a multiple of the tile.

struct Dims { M: u32, N: u32, K: u32, _p3: u32, _p4: u32, _p5: u32, _p6: u32, _p7: u32 }

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

@compute @workgroup_size(8, 8)
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
