// Placing values into a region of an output: the kernel family of the Array API's creation and
// manipulation functions (concat, stack, roll, tril/triu, eye, arange, linspace, full). Each step
// writes one region of the output, a strided view of it (shape, strides, offset in elements), with
// one of: an input view read through its own strides (converted to the output's dtype on the way),
// a constant, a ramp (start + i * step over the region's C-ordered index i, the last element
// optionally a value of its own), or the diagonal k of a matrix; a triangle mask (tril/triu) may
// zero what lies on one side of diagonal k. pycore/kernels/place.py fills in this template, after
// common.wgsl, for each (mode, dtypes, rank, mask).
//
// One element per thread. Words (u32; i32 bits where signed): 0 the element count of the region,
// 1 the region's offset in the output, 2 the input's offset (a copy), then the region's shape, the
// output's strides and the input's strides (a copy), then the mode's values (see place.py).

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
fn place(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= word(0u)) { return; }
    var o = iword(1u);
    var s = iword(2u);
{{walk}}
{{value}}
    out[u32(o)] = v;
}
