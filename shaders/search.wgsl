// Binary search of sorted values (searchsorted): pycore/kernels/sort.py fills in this template,
// after common.wgsl, for each dtype and whether a sorter permutation is read. One thread per
// query; values compare by the sort keys of shaders/sort.wgsl (-0.0 equals +0.0, NaN is the
// largest), as NumPy's searchsorted orders them.
//
// Words (u32; i32 bits where signed): 0 the sorted values' count, 1 the queries' count, 2 the side
// (0 left: the first place whose value is not below the query; 1 right: past every equal value),
// 3 the sorted values' offset, 4 their stride, 5 the queries' offset (they lie contiguously),
// 6 the sorter's offset, 7 its stride.

{{bindings}}
@group(0) @binding({{meta}}) var<uniform> words: array<vec4<u32>, 2>;

fn word(k: u32) -> u32 {
    return words[k / 4u][k % 4u];
}

fn iword(k: u32) -> i32 {
    return bitcast<i32>(words[k / 4u][k % 4u]);
}

fn key_of(bits: u32) -> u32 {
{{key}}
}

{{read}}

@compute @workgroup_size(WORKGROUP)
fn search(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let q = flat_index(gid, groups);
    if (q >= word(1u)) { return; }
    let key = key_of(bitcast<u32>(queries[u32(iword(5u) + i32(q))]));
    let right = word(2u) == 1u;
    var lo = 0u;
    var hi = word(0u);
    while (lo < hi) {
        let mid = lo + (hi - lo) / 2u;
        let k = key_of(sorted_at(mid));
        if ((right && k <= key) || (!right && k < key)) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    out[q] = lo;
}
