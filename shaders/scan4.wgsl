// The vec4 passes of the scans (shaders/scan.wgsl, which pycore/kernels/scan.py puts before this
// file where the values are 32-bit numbers): `scan_reduce4` and `scan_down4` do the work of
// `scan_reduce` and `scan_down` where the input and output are 32-bit arrays of one dtype whose
// rows lie contiguous in whole vec4s (stride 1, every row starting on a multiple of 4 elements, n a
// multiple of 4, no identity first): they read and write the same addresses as vec4s (`src4`,
// `dst4`: the bindings of `src` and `dst`), and a block never goes through workgroup memory:
// thread t holds vec4s t and t + WORKGROUP of its block in registers, scans each, and only the
// threads' two totals are scanned across the workgroup (`scan_pairs`: one barrier a step).

@group(0) @binding(0) var<storage, read> src4: array<vec4<{{in_type}}>>;
@group(0) @binding(1) var<storage, read_write> dst4: array<vec4<{{out_type}}>>;

var<workgroup> pairs: array<vec2<{{out_type}}>, 2u * WORKGROUP>;  // (scan_pairs' two halves)

fn combine2(a: vec2<{{out_type}}>, b: vec2<{{out_type}}>) -> vec2<{{out_type}}> {
    return vec2<{{out_type}}>(combine(a.x, b.x), combine(a.y, b.y));
}

// v's inclusive scan within the vec4 (its last lane, the vec4's total).
fn scan4(v: vec4<{{out_type}}>) -> vec4<{{out_type}}> {
    let y = combine(v.x, v.y);
    let z = combine(y, v.z);
    return vec4<{{out_type}}>(v.x, y, z, combine(z, v.w));
}

// The exclusive prefixes of thread t's two values among the workgroup's (each of x and y scanned
// on its own), and their totals: (prefix, total). Hillis-Steele steps between the two halves of
// `pairs`, one barrier a step. Called by every thread of the workgroup.
fn scan_pairs(t: u32, v: vec2<{{out_type}}>) -> array<vec2<{{out_type}}>, 2> {
    let none = vec2<{{out_type}}>(identity(), identity());
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
    return array<vec2<{{out_type}}>, 2>(before, pairs[at + WORKGROUP - 1u]);
}

// ---- the kernels

@compute @workgroup_size(WORKGROUP)
fn scan_reduce4(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) groups: vec3<u32>) {
    let g = wid.x + wid.y * groups.x;
    let nb = word(6u);
    if (g >= word(0u) * nb) { return; }
    let b = row_bases(g / nb);
    let first = (g % nb) * BLOCK;
    let n = word(1u);
    let t = lid.x;
    var acc = identity();
    for (var k = 0u; k < ITEMS / 4u; k = k + 1u) {
        let e = first + 4u * (t + k * WORKGROUP);
        if (e < n) {
            let v = vec4<{{out_type}}>(src4[(u32(b.x) + e) / 4u]);
            acc = combine(acc, combine(combine(v.x, v.y), combine(v.z, v.w)));
        }
    }
    let total = workgroup_total(t, acc);
    if (t == 0u) { totals[g] = total; }
}

@compute @workgroup_size(WORKGROUP)
fn scan_down4(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) groups: vec3<u32>) {
    let g = wid.x + wid.y * groups.x;
    let nb = word(6u);
    if (g >= word(0u) * nb) { return; }
    let b = row_bases(g / nb);
    let first = (g % nb) * BLOCK;
    let n = word(1u);
    let t = lid.x;
    let ea = first + 4u * t;  // (the first elements of its two vec4s)
    let eb = ea + 4u * WORKGROUP;
    let none = vec4<{{out_type}}>(identity());
    var a = none;
    var c = none;
    if (ea < n) { a = scan4(vec4<{{out_type}}>(src4[(u32(b.x) + ea) / 4u])); }
    if (eb < n) { c = scan4(vec4<{{out_type}}>(src4[(u32(b.x) + eb) / 4u])); }
    var carry = identity();
    if (nb > 1u) { carry = totals[word(0u) * nb + g]; }  // (its exclusive prefix: scan_carry)
    let s = scan_pairs(t, vec2<{{out_type}}>(a.w, c.w));
    let pa = combine(carry, s[0].x);
    let pc = combine(combine(carry, s[1].x), s[0].y);
    if (ea < n) { dst4[(u32(b.y) + ea) / 4u] = vec4<{{out_type}}>(combine(pa, a.x), combine(pa, a.y), combine(pa, a.z), combine(pa, a.w)); }
    if (eb < n) { dst4[(u32(b.y) + eb) / 4u] = vec4<{{out_type}}>(combine(pc, c.x), combine(pc, c.y), combine(pc, c.z), combine(pc, c.w)); }
}
