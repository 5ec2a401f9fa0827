// Reductions to one number, entirely on the GPU: the host encodes passes until one value is left,
// all in one command buffer; only 4 bytes are read. Two kernel pairs, both pairwise (so the error
// grows with log n, as in NumPy's pairwise sum):
// - `reduce` / `dot_products` (GPUs): each WORKGROUP-thread workgroup loads 4 values per thread,
//   then reduces in a tree in workgroup memory; a pass turns n values into ceil(n / (4 WORKGROUP))
//   partials.
// - `reduce_thread` / `dot_thread` (CPU adapters such as SwiftShader, where each barrier switches
//   every thread's context): no workgroup memory, no barrier; each thread reduces 16 values in
//   registers, and a pass turns n values into ceil(n / 16) partials.
//
// params.op: 0 sum, 1 max, 2 min. params.identity: the bits of 0, -inf or +inf (WGSL has no
// infinity literal). max and min return NaN if any input is NaN, as NumPy's do.

struct Params { n: u32, op: u32, identity: u32, _p3: u32, _p4: u32, _p5: u32, _p6: u32, _p7: u32 }

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> partials: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

var<workgroup> scratch: array<f32, WORKGROUP>;

fn combine(a: f32, b: f32) -> f32 {
    if (params.op == 0u) { return a + b; }
    let m = select(min(a, b), max(a, b), params.op == 1u);
    return select(select(m, a, is_nan(a)), b, is_nan(b));
}

fn load(i: u32) -> f32 {
    return select(bitcast<f32>(params.identity), src[min(i, params.n - 1u)], i < params.n);
}

// Tree-reduce `value` over the workgroup and write the group's partial.
fn finish(value: f32, lid: u32, group: u32) {
    scratch[lid] = value;
    for (var stride = WORKGROUP / 2u; stride > 0u; stride = stride / 2u) {
        workgroupBarrier();
        if (lid < stride) {
            scratch[lid] = combine(scratch[lid], scratch[lid + stride]);
        }
    }
    if (lid == 0u) {
        partials[group] = scratch[0];
    }
}

@compute @workgroup_size(WORKGROUP)
fn reduce(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let group = wid.x + wid.y * groups.x;
    let base = group * 4u * WORKGROUP + lid;
    let v = combine(combine(load(base), load(base + WORKGROUP)),
                    combine(load(base + 2u * WORKGROUP), load(base + 3u * WORKGROUP)));
    finish(v, lid, group);
}

// First pass of dot(a, b): products summed per workgroup; later passes use `reduce` (sum).
@group(0) @binding(3) var<storage, read> other: array<f32>;

fn product(i: u32) -> f32 {
    let j = min(i, params.n - 1u);
    return select(0.0, src[j] * other[j], i < params.n);
}

@compute @workgroup_size(WORKGROUP)
fn dot_products(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
       @builtin(local_invocation_index) lid: u32) {
    let group = wid.x + wid.y * groups.x;
    let base = group * 4u * WORKGROUP + lid;
    let v = (product(base) + product(base + WORKGROUP))
          + (product(base + 2u * WORKGROUP) + product(base + 3u * WORKGROUP));
    finish(v, lid, group);
}

// ---- the CPU-adapter pair: each thread combines 16 neighbouring values pairwise in registers, so
// partial s covers values 16 s .. 16 s + 15; THREAD_GROUP threads per workgroup.
fn load4(i: u32) -> f32 {
    return combine(combine(load(i), load(i + 1u)), combine(load(i + 2u), load(i + 3u)));
}

fn product4(i: u32) -> f32 {
    return (product(i) + product(i + 1u)) + (product(i + 2u) + product(i + 3u));
}

fn thread_slot(wid: vec3<u32>, groups: vec3<u32>, lid: u32) -> u32 {
    return (wid.x + wid.y * groups.x) * THREAD_GROUP + lid;
}

@compute @workgroup_size(THREAD_GROUP)
fn reduce_thread(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32) {
    let slot = thread_slot(wid, groups, lid);
    let i = slot * 16u;
    if (i < params.n) {
        partials[slot] = combine(combine(load4(i), load4(i + 4u)), combine(load4(i + 8u), load4(i + 12u)));
    }
}

@compute @workgroup_size(THREAD_GROUP)
fn dot_thread(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let slot = thread_slot(wid, groups, lid);
    let i = slot * 16u;
    if (i < params.n) {
        partials[slot] = (product4(i) + product4(i + 4u)) + (product4(i + 8u) + product4(i + 12u));
    }
}
