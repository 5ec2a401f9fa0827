"""The GPU tile kernels of the float32 matmul, written out as WGSL: a workgroup computes a tile of C
through workgroup memory, each thread a block of it in named vec4 registers (WGSL has no unrolling
directive, and arrays indexed in loops spill). scripts/matmul_wgsl.py writes each of GPU_TILES
(kernels/matmul.py) into shaders/matmul.wgsl, plain and in its z form; kernels/matmul.py generates
the same kernels with an epilogue in their stores (bias, activation) at run time.

>>> text = gpu_kernel("mm", 32, 32, 16, 4, 4, along_z=True, store=lambda r, c, v: f"g({v})")
>>> "let kn = select(" in text and "= g(c0_0);" in text
True
"""

from __future__ import annotations

from collections.abc import Callable


def gpu_kernel(name: str, bm: int, bn: int, bk: int, tm: int, tn: int, prefetch: bool = True,
               double: bool = False, along_z: bool = False,
               store: Callable[[str, str, str], str] | None = None) -> str:
    """A workgroup-memory tiled matmul for GPUs on vec4 arrays (N and K multiples of 4): a workgroup
    of (bn / tn) x (bm / tm) threads computes a bm x bn tile of C, each thread tm rows x tn columns
    held in named vec4 registers; K advances bk at a time through workgroup memory (A stored
    transposed, so a thread reads 4 of its rows as one vec4). With `prefetch`, the next slice's
    global loads are issued before the current slice is multiplied; with `double` (and prefetch),
    two slices of workgroup memory alternate, one barrier a slice. With `along_z`, workgroups along
    z take the offsets and the slice of K of Dims' a_z, b_z, c_z and k_z (a batch of products, or
    split-K's partial products); without, the kernel is the plain one (those cost about 3% of a
    2-D product's time on an H100). `store(row, column / 4, value)`: the WGSL of what is stored
    for a vec4 of C (an epilogue: kernels/matmul.py), the value itself by default."""
    gx, gy = bn // tn, bm // tm
    copies = 2 if double else 1
    threads, m4, n4t, bk4 = gx * gy, bm // 4, bn // 4, bk // 4
    la, lb = bm * bk4 // threads, bk * n4t // threads
    assert la * threads == bm * bk4 and lb * threads == bk * n4t and tm % 4 == 0 and tn % 4 == 0
    ri, cj = range(tm // 4), range(tn // 4)
    wa, wb = f"{name}_a", f"{name}_b"
    out = [
        f"// C = A @ B when N and K are multiples of 4 (vec4 arrays), for GPUs. A workgroup of {gx} x {gy}",
        f"// threads computes a {bm} x {bn} tile of C, each thread {tm} rows x {tn} columns in registers",
        f"// (rows lid.y * 4 + {4 * gy} * i, columns lid.x * 4 + {4 * gx} * j). K advances {bk} at a time",
        "// through workgroup memory, A's slice stored transposed; loads past the edges are zero"
        + (", and the next" if prefetch else "."),
        *(["// slice's global loads are issued before the current one is multiplied."] if prefetch else []),
        f"var<workgroup> {wa}: array<vec4<f32>, {copies * bk * m4}>;  // [k * {m4} + row / 4]",
        f"var<workgroup> {wb}: array<vec4<f32>, {copies * bk * n4t}>;  // [k * {n4t} + column / 4]",
        "",
        f"@compute @workgroup_size({gx}, {gy})",
        f"fn {name}(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {{",
        "    let n4 = dims.N / 4u;",
        "    let k4 = dims.K / 4u;",
        f"    let row0 = wid.y * {bm}u;",
        f"    let col0 = wid.x * {n4t}u;",
        f"    let t = lid.y * {gx}u + lid.x;",
    ]
    if along_z:
        out += [
            "    // workgroups along z: a product each (a batch) or a slice of K each (partial products);",
            "    // their vec4 offsets into A, B and C, and the vec4s of K each sums (0: all of K)",
            "    let za = wid.z * dims.a_z;",
            "    let zb = wid.z * dims.b_z;",
            "    let zc = wid.z * dims.c_z;",
            "    let kn = select(k4, min(dims.k_z, k4 - min(k4, wid.z * dims.k_z)), dims.k_z != 0u);",
        ]
    za, kn, kl = ("za + ", "kn", "kn * 4u") if along_z else ("", "k4", "dims.K")
    out += [f"    var c{r}_{j} = vec4<f32>(0.0);" for r in range(tm) for j in cj]
    for x in range(la):
        out += [f"    let ar{x} = (t + {x * threads}u) / {bk4}u;",
                f"    let aq{x} = (t + {x * threads}u) % {bk4}u;",
                f"    let aok{x} = row0 + ar{x} < dims.M;",
                f"    let abase{x} = {za}(row0 + ar{x}) * k4 + aq{x};",
                f"    var va{x} = vec4<f32>(0.0);"]
    for x in range(lb):
        out += [f"    let bk{x} = (t + {x * threads}u) / {n4t}u;",
                f"    let bc{x} = (t + {x * threads}u) % {n4t}u;",
                f"    let bok{x} = col0 + bc{x} < n4;",
                *([f"    let bbase{x} = zb + bk{x} * n4 + col0 + bc{x};"] if along_z else []),
                f"    var vb{x} = vec4<f32>(0.0);"]

    def loads(k0: str, indent: str) -> list[str]:
        lines = []
        for x in range(la):
            lines += [f"{indent}va{x} = vec4<f32>(0.0);",
                      f"{indent}if (aok{x} && {k0} + aq{x} < {kn}) {{ va{x} = A4[abase{x} + {k0}]; }}"]
        for x in range(lb):
            at = f"bbase{x} + {k0} * 4u * n4" if along_z else f"({k0} * 4u + bk{x}) * n4 + col0 + bc{x}"
            lines += [f"{indent}vb{x} = vec4<f32>(0.0);",
                      f"{indent}if (bok{x} && {k0} * 4u + bk{x} < {kl}) {{ vb{x} = B4[{at}]; }}"]
        return lines

    def stores(indent: str, base_a: str = "", base_b: str = "") -> list[str]:
        lines = []
        for x in range(la):
            at = f"{base_a}(aq{x} * 4u + {{j}}u) * {m4}u + ar{x} / 4u"
            lines += [f"{indent}{wa}[{at.format(j=j)}][ar{x} % 4u] = va{x}.{c};"
                      for j, c in enumerate("xyzw")]
        lines += [f"{indent}{wb}[{base_b}bk{x} * {n4t}u + bc{x}] = vb{x};" for x in range(lb)]
        return lines

    def multiply(indent: str, base_a: str = "", base_b: str = "") -> list[str]:
        lines = []
        for kk in range(bk):
            lines += [f"{indent}let a{kk}_{i} = {wa}[{base_a}{kk * m4 + i * gy}u + lid.y];" for i in ri]
            lines += [f"{indent}let b{kk}_{j} = {wb}[{base_b}{kk * n4t + j * gx}u + lid.x];" for j in cj]
            for i in ri:
                for r, c in enumerate("xyzw"):
                    for j in cj:
                        acc = f"c{4 * i + r}_{j}"
                        lines.append(f"{indent}{acc} = {acc} + a{kk}_{i}.{c} * b{kk}_{j};")
        return lines

    if double:
        out += loads("0u", "    ") + stores("    ") + ["    workgroupBarrier();", "    var half = 0u;"]
        out.append(f"    for (var k0 = 0u; k0 < {kn}; k0 = k0 + {bk4}u) {{")
        out.append(f"        let next = k0 + {bk4}u;")
        out += loads("next", "        ")
        out += multiply("        ", f"half * {bk * m4}u + ", f"half * {bk * n4t}u + ")
        out.append("        half = 1u - half;")
        out += stores("        ", f"half * {bk * m4}u + ", f"half * {bk * n4t}u + ")
        out += ["        workgroupBarrier();", "    }"]
    else:
        if prefetch:
            out += loads("0u", "    ")
        out.append(f"    for (var k0 = 0u; k0 < {kn}; k0 = k0 + {bk4}u) {{")
        if not prefetch:
            out += loads("k0", "        ")
        out += stores("        ")
        out.append("        workgroupBarrier();")
        if prefetch:
            out.append(f"        let next = k0 + {bk4}u;")
            out += loads("next", "        ")
        out += multiply("        ")
        out += ["        workgroupBarrier();", "    }"]
    for i in ri:
        for r in range(4):
            row = f"row0 + (lid.y + {i * gy}u) * 4u + {r}u"
            out.append(f"    if ({row} < dims.M) {{")
            for j in cj:
                col = f"col0 + lid.x + {j * gx}u"
                value = f"c{4 * i + r}_{j}"
                if store is not None:
                    value = store(row, col, value)
                at = f"{'zc + ' if along_z else ''}({row}) * n4 + {col}"
                out.append(f"        if ({col} < n4) {{ C4[{at}] = {value}; }}")
            out.append("    }")
    out.append("}")
    return "\n".join(out) + "\n"
