// An element-wise kernel: one op, or a chain (a tree) of unary and binary ops applied in one pass,
// so the intermediate arrays are never written to memory. pycore/fusion.py fills in this template
// for each op's own kernel and for each chain a CommandBatch fuses, and compiles it after
// common.wgsl and the functions of elementwise.wgsl and binary.wgsl (the same `<name>_f`
// functions, so a fused chain computes what the separate kernels would, lane by lane).
//
// Bindings: the chain's distinct input arrays in0, in1, ... at 0..k-1 (the generator declares them
// in place of the inputs marker below), then the output at k and the ops' numeric parameters at
// k+1, packed as vec4s in the order the ops read them. The body marker becomes one `let` per input
// and per op. Dispatch, vec4 lanes and padding are as in elementwise.wgsl.

{{inputs}}
@group(0) @binding({{out}}) var<storage, read_write> fused_out: array<vec4<f32>>;
@group(0) @binding({{params}}) var<uniform> fused_params: array<vec4<f32>, {{param_vec4s}}>;

@compute @workgroup_size(WORKGROUP)
fn fused(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= arrayLength(&fused_out)) { return; }
{{body}}
}
