// The parts of an attention whose keys were walked in parts (shaders/attention.wgsl with PARTS >
// 1), combined: for each query row and output column, with M the largest of the parts' maxima,
// out = sum_p exp(m_p - M) o_p / sum_p exp(m_p - M) l_p. A part that walked no key (m = -inf,
// l = 0) weighs nothing; a row whose every key was masked (every l 0) gives NaN, as the kernel
// walking all keys does. A thread per output element, after common.wgsl.
//
// Words of `words`: 0 rows (batch entries x queries), 1 Dv, 2 parts. A row's parts lie one after
// another, each Dv floats of o, then m, then l.

@group(0) @binding(0) var<storage, read> parts_in: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> words: array<vec4<u32>, 1>;

@compute @workgroup_size(WORKGROUP)
fn combine(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let t = flat_index(gid, groups);
    let dv = words[0].y;
    let parts = words[0].z;
    if (t >= words[0].x * dv) {
        return;
    }
    let c = t % dv;
    let row = (t / dv) * parts * (dv + 2u);
    let neg_inf = bitcast<f32>(0xff800000u | (dv & 0u));  // (built at run time: WGSL has no inf constant)
    var top = neg_inf;
    for (var p = 0u; p < parts; p = p + 1u) {
        top = max(top, parts_in[row + p * (dv + 2u) + dv]);
    }
    let base = select(top, 0.0, top == neg_inf);  // (every part empty or masked: l stays 0)
    var l = 0.0;
    var o = 0.0;
    for (var p = 0u; p < parts; p = p + 1u) {
        let at = row + p * (dv + 2u);
        let w = exp(parts_in[at + dv] - base);
        l = l + w * parts_in[at + dv + 1u];
        o = o + w * parts_in[at + c];
    }
    out[t] = select(o / l, bitcast<f32>(0x7fc00000u | (dv & 0u)), l == 0.0);
}
