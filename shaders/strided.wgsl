// An element-wise kernel over n-d inputs read through their strides, with broadcasting (stride
// 0), any offsets and any pycore dtypes: pycore/kernels/elementwise.py fills in this template for
// each (op, dtypes, rank, which operands are scalars), after common.wgsl and the functions of
// elementwise.wgsl, binary.wgsl and ufuncs.wgsl. A fused kernel computes several calls in turn
// (the body's `let v0 = ...; let v1 = ...;`), each on the values before it, and stores the last.
//
// Each thread computes four elements of the (C-ordered) output, a workgroup's width apart, so
// that every load and store instruction of a workgroup touches neighbouring addresses: element
// j of thread t of workgroup g is g * 4 * WORKGROUP + j * WORKGROUP + t. For each it splits the
// flat index into coordinates over the collapsed shape and loads each input at its offset +
// coordinates . strides; the four values make the vec4 the op's function takes (the generator
// writes the four lanes out, so they stay in registers). A thread of a packed output computes
// four words of it instead (8 or 16 elements: as many bytes as a float32 thread moves), four
// elements at a time, each four in a block of its own; so does a thread whose arithmetic is heavy
// (elementwise.py's HEAVY_FLOPS: eight 32-bit elements, g * 8 * WORKGROUP + j * WORKGROUP + t),
// all its loads first. Shapes, offsets and strides are words of
// `words` (strides as i32 bits; negative strides walk backwards), so one pipeline serves every
// shape of a rank: word 0 is the element count of this chunk, word 1 the index of the chunk's
// first element in the output (a large output is written in chunks that each fit one binding),
// then what the generator lays out (see elementwise.py). A scalar operand is a word, not a buffer.
//
// Packed dtypes (int8, int16, uint8, uint16, float16: several elements to a u32 word) are read as
// words and unpacked to their 32-bit form; a packed output is written a word at a time, so each
// thread's elements make whole words instead, which it writes (elementwise.py's `_lanes`).

{{inputs}}
@group(0) @binding({{out}}) var<storage, read_write> out: array<{{out_type}}>;
@group(0) @binding({{meta}}) var<uniform> words: array<vec4<u32>, {{meta_vec4s}}>;

fn word(k: u32) -> u32 {
    return words[k / 4u][k % 4u];
}

fn iword(k: u32) -> i32 {
    return bitcast<i32>(words[k / 4u][k % 4u]);
}

@compute @workgroup_size(WORKGROUP)
fn strided(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let t = flat_index(gid, groups);
    let first = {{first}};
    let n = word(0u);
    if (first >= n) { return; }
{{lanes}}
}
