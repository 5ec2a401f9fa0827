// A reduction over any set of axes of an n-d input read through its strides:
// pycore/kernels/reduction.py fills in this template for each (reduction, dtypes, ranks, shape of
// the workgroup), after common.wgsl and shaders/reductions.wgsl.
//
// A workgroup of OX x RY threads computes OX consecutive outputs (C order over the kept axes);
// the RY threads of an output walk its reduced elements (r = lane, lane + RY, ...), four loads
// in flight at a time, each combining in order in registers (a float sum with Kahan's
// compensation), then the RY partials are
// combined in a tree in workgroup memory. Rows that are contiguous get RY = 256 and OX = 1 (a
// workgroup per row); columns get OX > 1, so neighbouring threads read neighbouring elements.
// When there are few outputs and long reductions, the reduced elements are split into S segments
// (workgroup index = block + segment * blocks): each writes a partial, and a second pass of this
// kernel combines the S partials of each output. The reduced values may be an element-wise
// expression of several inputs (a prologue: its first input at binding 0, the others after the
// fixed bindings, their offsets and strides in the words: see reduction.py). Words of `words`: 0 outputs, 1 reduced elements
// per output, 2 segment length, 3 output blocks, 4 the input's offset, 5 the identity's bits,
// 6 the final scale (mean, var, std), then the kept shape and strides, then the reduced shape and
// strides. A 16-bit input whose last axis is kept may be read a word at a time: each thread then
// reduces two neighbouring outputs at once (its accumulator a vec2; the kept axes walked in words,
// word 0 counting pairs of outputs) and writes both.

{{inputs}}
@group(0) @binding(1) var<storage, read_write> out: array<{{out_type}}>;
@group(0) @binding(2) var<uniform> words: array<vec4<u32>, {{meta_vec4s}}>;
{{center_binding}}

const OX: u32 = {{ox}}u;
const RY: u32 = {{ry}}u;

var<workgroup> scratch: array<{{acc_type}}, {{threads}}>;
var<workgroup> scratch_i: array<u32, {{threads}}>;

fn word(k: u32) -> u32 {
    return words[k / 4u][k % 4u];
}

fn iword(k: u32) -> i32 {
    return bitcast<i32>(words[k / 4u][k % 4u]);
}

// element r of output oc's reduced elements, as the accumulator's type (with a prologue: the
// expression's values at four such elements, as a vec4)
{{value}}

// the index of element r of output oc's reduced elements (an arg reduction's)
fn index(r: u32, base: i32, oc: u32) -> u32 {
{{index}}
}

// (value, index) of a thread's partial combined with another's
fn merge(v: {{acc_type}}, vi: u32, w: {{acc_type}}, wi: u32) -> vec2<u32> {
{{merge}}
}

@compute @workgroup_size(OX, RY)
fn reduce_axes(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) groups: vec3<u32>) {
    let group = wid.x + wid.y * groups.x;
    let block = group % word(3u);
    let segment = group / word(3u);
    let o = block * OX + lid.x;
    let n_out = word(0u);
    let n_red = word(1u);
    let r_lo = segment * word(2u);
    // (a grid split over y may have a few workgroups past the last segment: they write nothing)
    let live = o < n_out && r_lo < n_red;
    let oc = min(o, n_out - 1u);
{{kept}}
    let r_hi = min(r_lo + word(2u), n_red);
    var v = {{identity}};
    var vi = 0xffffffffu;
    var comp = {{acc_type}}(0);
{{loop}}
    let slot = lid.y * OX + lid.x;
    scratch[slot] = v;
    scratch_i[slot] = vi;
    for (var stride = RY / 2u; stride > 0u; stride = stride / 2u) {
        workgroupBarrier();
        if (lid.y < stride) {
            let m = merge(scratch[slot], scratch_i[slot], scratch[slot + stride * OX], scratch_i[slot + stride * OX]);
            scratch[slot] = bitcast<{{acc_type}}>({{merged}});
            scratch_i[slot] = m.y;
        }
    }
    workgroupBarrier();
    if (lid.y == 0u && live) {
        let total = scratch[lid.x];
        let total_i = scratch_i[lid.x];
        {{store}}
        {{store_index}}
    }
}
