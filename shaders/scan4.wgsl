// The vec4 passes of the scans (shaders/scan.wgsl, which pycore/kernels/scan.py puts before this
// file): `scan_reduce4` and `scan_down4` do the work of `scan_reduce` and `scan_down` where the
// input and output are arrays of one dtype whose rows lie contiguous in whole vec4s (stride 1,
// every row starting on a whole vec4, its length whole vec4s, no identity first): they read and
// write the same addresses as vec4s (`src4`, `dst4`: the bindings of `src` and `dst`), and a block
// never goes through workgroup memory: thread t holds loads t and t + WORKGROUP of its block in
// registers, scans each, and only the threads' two totals are scanned across the workgroup
// (`scan_pairs`: one barrier a step). A load (`Load`) is PER values: four 32-bit numbers, or two
// complex64 values; a `Pair` holds two values. scan.py writes the functions that depend on the
// value's type before this file: load_none (a load of identities), load_total (a load's values
// combined), load_scan (its inclusive scan), load_last (its last value), load_apply (a value
// combined with each of a load's), pair_of, pair_x and pair_y.

@group(0) @binding(0) var<storage, read> src4: array<Load>;
@group(0) @binding(1) var<storage, read_write> dst4: array<Load>;

var<workgroup> pairs: array<Pair, 2u * WORKGROUP>;  // (scan_pairs' two halves)

fn combine2(a: Pair, b: Pair) -> Pair {
    return pair_of(combine(pair_x(a), pair_x(b)), combine(pair_y(a), pair_y(b)));
}

// The exclusive prefixes of thread t's two values among the workgroup's (each of x and y scanned
// on its own), and their totals: (prefix, total). Hillis-Steele steps between the two halves of
// `pairs`, one barrier a step. Called by every thread of the workgroup.
fn scan_pairs(t: u32, v: Pair) -> array<Pair, 2> {
    let none = pair_of(identity(), identity());
    pairs[t] = v;
    workgroupBarrier();
    var at = 0u;
    for (var d = 1u; d < WORKGROUP; d = d * 2u) {
        var x = pairs[at + t];
        if (t >= d) { x = combine2(pairs[at + t - d], x); }
        at = WORKGROUP - at;
        pairs[at + t] = x;
        workgroupBarrier();
    }
    var before = none;
    if (t > 0u) { before = pairs[at + t - 1u]; }
    return array<Pair, 2>(before, pairs[at + WORKGROUP - 1u]);
}

// ---- the kernels

@compute @workgroup_size(WORKGROUP)
fn scan_reduce4(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) groups: vec3<u32>) {
    let blk = block_at(wid, groups);
    if (!blk.live) { return; }
    let n = word(1u);
    let t = lid.x;
    var acc = identity();
    for (var k = 0u; k < ITEMS / PER; k = k + 1u) {
        let e = blk.first + PER * (t + k * WORKGROUP);
        if (e < n) { acc = combine(acc, load_total(src4[(u32(blk.b.x) + e) / PER])); }
    }
    let total = workgroup_total(t, acc);
    if (t == 0u) { totals[blk.g] = total; }
}

@compute @workgroup_size(WORKGROUP)
fn scan_down4(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) groups: vec3<u32>) {
    let blk = block_at(wid, groups);
    if (!blk.live) { return; }
    let n = word(1u);
    let t = lid.x;
    let ea = blk.first + PER * t;  // (the first elements of its two loads)
    let eb = ea + PER * WORKGROUP;
    var a = load_none();
    var c = load_none();
    if (ea < n) { a = load_scan(src4[(u32(blk.b.x) + ea) / PER]); }
    if (eb < n) { c = load_scan(src4[(u32(blk.b.x) + eb) / PER]); }
    var carry = identity();
    if (blk.nb > 1u) { carry = totals[word(0u) * blk.nb + blk.g]; }  // (its exclusive prefix: scan_carry)
    let s = scan_pairs(t, pair_of(load_last(a), load_last(c)));
    let pa = combine(carry, pair_x(s[0]));
    let pc = combine(combine(carry, pair_x(s[1])), pair_y(s[0]));
    if (ea < n) { dst4[(u32(blk.b.y) + ea) / PER] = load_apply(pa, a); }
    if (eb < n) { dst4[(u32(blk.b.y) + eb) / PER] = load_apply(pc, c); }
}
