// Selecting kernels: each element of a C-ordered output computed from a few input views read
// through their own strides (broadcast axes have stride 0), the family of the Array API's where,
// take and take_along_axis. pycore/kernels/gather.py fills in this template, after
// common.wgsl, for each (mode, dtypes, rank):
// - where: out = x1 where condition else x2 (inputs condition, x1, x2, converted to out's dtype);
// - gather: out = x at `index` along one axis, the index read from an index array: negative ones
//   count from the end, and any still out of [0, n) is clamped to it (the host checks host
//   indices and raises IndexError first; indices already on the GPU are clamped).
//
// One element per thread. Words (u32; i32 bits where signed): 0 the element count, then the
// output's shape (collapsed), then per input its offset and strides, then the mode's values
// (gather: the axis' length n and x's stride along it).

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
fn gather(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= word(0u)) { return; }
{{walk}}
{{value}}
    out[i] = v;
}
