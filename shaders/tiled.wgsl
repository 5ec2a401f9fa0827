// An element-wise kernel for outputs of two axes (and a batch axis) where an input is read
// column-wise: its neighbouring elements lie along the output's rows (a transposed view). Read
// through its strides one element per thread, such an input would cost a memory transaction per
// element; here a workgroup stages a 32 x 32 tile of it through workgroup memory, loading along
// its contiguous axis and reading it back along the output's (the shared-memory transpose), so
// every load and store is coalesced. pycore/kernels/elementwise.py fills in this template after
// the same functions as shaders/strided.wgsl; inputs read row-wise load directly.
//
// Workgroup 32 x 8 threads: thread (tx, ty) computes output rows ty, ty + 8, ty + 16, ty + 24 of
// the tile at column tx (four values: the vec4 the op's function takes). Words of `words`: 0 rows
// M, 1 columns N, then per array input its offset, row stride, column stride and batch stride,
// then the scalars' bits. The batch index is the grid's z.

{{inputs}}
@group(0) @binding({{out}}) var<storage, read_write> out: array<{{out_type}}>;
@group(0) @binding({{meta}}) var<uniform> words: array<vec4<u32>, {{meta_vec4s}}>;

{{tiles}}

fn word(k: u32) -> u32 {
    return words[k / 4u][k % 4u];
}

fn iword(k: u32) -> i32 {
    return bitcast<i32>(words[k / 4u][k % 4u]);
}

@compute @workgroup_size(32, 8)
fn tiled(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let m = word(0u);
    let n = word(1u);
    let row0 = wid.y * 32u;
    let col0 = wid.x * 32u;
    let batch = i32(wid.z);
    let tx = lid.x;
    let ty = lid.y;
{{load}}
    workgroupBarrier();
{{gather}}
{{body}}
    for (var j = 0u; j < 4u; j = j + 1u) {
        let r = row0 + ty + 8u * j;
        let c = col0 + tx;
        if (r < m && c < n) {
            out[wid.z * m * n + r * n + c] = y[j];
        }
    }
}
