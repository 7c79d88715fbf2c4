#!/usr/bin/env python3
"""Mutants of valid manifests, each read by kubectl (`kubectl label --local -f FILE x=y -o json`).

Writes OUT/NNNNN.yaml (the mutant) and OUT/NNNNN.kubectl.json ({"mutation", "source",
"objects": the objects kubectl printed, "error": the text after `error parsing FILE: ` or
null, "stderr"}). The ignored test `malformed::mutants_read_as_kubectl_reads_them`
(`HPA_MUTANTS=OUT`) compares hpa-lint's reading of each with kubectl's.

Usage: yaml-mutants.py OUT COUNT [SEED] [KUBECTL]
"""
import glob, json, os, random, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def sources():
    pats = [f"{ROOT}/examples/**/*.yaml", f"{ROOT}/tests/data/lint/*/good.yaml",
            "/work/shared/realworld/hpa/*"]
    files = sorted({p for pat in pats for p in glob.glob(pat, recursive=True)})
    out = []
    for f in files:
        try:
            t = open(f, encoding="utf-8").read()
        except (UnicodeDecodeError, IsADirectoryError):
            continue
        if t.strip():
            out.append((os.path.relpath(f, ROOT) if f.startswith(ROOT) else f, t))
    return out


def pick_line(r, lines, pred=lambda l: l.strip() != ""):
    idx = [i for i, l in enumerate(lines) if pred(l)]
    return r.choice(idx) if idx else None


def m_tab_indent(r, lines):
    i = pick_line(r, lines, lambda l: l.startswith(" "))
    if i is None: return None
    n = len(lines[i]) - len(lines[i].lstrip(" "))
    k = r.randint(1, n)
    lines[i] = lines[i][: n - k] + "\t" + lines[i][n:] if r.random() < .5 else "\t" + lines[i][k:]
    return lines


def m_tab_in_value(r, lines):
    i = pick_line(r, lines, lambda l: ": " in l)
    if i is None: return None
    j = lines[i].index(": ") + 1
    where = r.choice([j, j + 1, len(lines[i])])
    lines[i] = lines[i][:where] + "\t" + lines[i][where:]
    return lines


def m_indent_off(r, lines):
    i = pick_line(r, lines, lambda l: l.strip() and not l.lstrip().startswith("#"))
    if i is None: return None
    if r.random() < .5 and lines[i].startswith(" "):
        lines[i] = lines[i][1:]
    else:
        lines[i] = " " + lines[i]
    return lines


def m_colon(r, lines):
    i = pick_line(r, lines, lambda l: ":" in l)
    if i is None: return None
    l = lines[i]
    c = r.choice([k for k, ch in enumerate(l) if ch == ":"])
    choice = r.randrange(4)
    if choice == 0: lines[i] = l[:c] + l[c + 1:]
    elif choice == 1: lines[i] = l[:c] + "::" + l[c + 1:]
    elif choice == 2: lines[i] = l + ":"
    else: lines[i] = l[:c] + ":" + l[c:].replace(" ", ": ", 1) if " " in l[c + 2:] else l + ": x"
    return lines


def m_dash(r, lines):
    i = pick_line(r, lines)
    if i is None: return None
    l = lines[i]
    n = len(l) - len(l.lstrip(" "))
    if l.lstrip().startswith("- ") and r.random() < .5:
        lines[i] = l[:n] + "  " + l[n + 2:] if r.random() < .5 else l[:n] + "-" + l[n + 2:]
    else:
        lines[i] = l[:n] + r.choice(["- ", "-", "- - "]) + l[n:]
    return lines


def m_quote(r, lines):
    i = pick_line(r, lines, lambda l: ": " in l)
    if i is None: return None
    l = lines[i]
    j = l.index(": ") + 2
    q = r.choice(['"', "'"])
    k = r.randrange(4)
    if k == 0: lines[i] = l[:j] + q + l[j:]
    elif k == 1: lines[i] = l + q
    elif k == 2: lines[i] = l[:j] + q + l[j:] + q + q
    else:
        s = l.lstrip(" ")
        lines[i] = l[: len(l) - len(s)] + q + s
    return lines


def m_marker(r, lines):
    i = r.randrange(len(lines) + 1)
    lines.insert(i, r.choice(["---", "...", "--- ", "---x", "... # c", "--- |", "--- a: b", "....", "- --"]))
    return lines


def m_dup_key(r, lines):
    i = pick_line(r, lines, lambda l: ": " in l and not l.lstrip().startswith("#"))
    if i is None: return None
    lines.insert(i + r.randint(0, 1), lines[i])
    return lines


def m_anchor(r, lines):
    i = pick_line(r, lines, lambda l: l.rstrip().endswith(":") and not l.lstrip().startswith(("#", "-")))
    j = pick_line(r, lines, lambda l: ": " in l and not l.lstrip().startswith("#"))
    if i is None or j is None: return None
    lines[i] = lines[i].rstrip() + r.choice([" &a", " &a ", " &a #c", " !!map &a", " &a{"])
    k = lines[j].index(": ") + 2
    lines[j] = lines[j][:k] + r.choice(["*a", "*a ", "*b", "*a:", "&a x", "*a\t", "<<: *a"]) if r.random() < .8 else lines[j]
    return lines


def m_flow_broken(r, lines):
    i = pick_line(r, lines, lambda l: l.rstrip().endswith(":") and not l.lstrip().startswith(("#", "-")))
    if i is None: return None
    ind = len(lines[i]) - len(lines[i].lstrip(" "))
    pad = " " * r.choice([0, ind, ind + 1, ind + 2])
    body = r.choice([["{a: 1,", pad + "b: 2}"], ["{a: 1", pad + ", b: 2}"], ["[1,", pad + "2]"],
                     ["{a:", pad + "1}"], ["{\"a\"", pad + ": 1}"], ["[a, b", pad + "]"], ["{a: 1,", pad + "b: 2"],
                     ["{a: [1,", pad + "2]}"], ["[", pad + "]"]])
    # replace the nested block with a flow collection
    j = i + 1
    while j < len(lines) and (lines[j].strip() == "" or len(lines[j]) - len(lines[j].lstrip(" ")) > ind):
        j += 1
    lines[i:j] = [lines[i].rstrip() + " " + body[0]] + body[1:]
    return lines


def m_bom(r, lines):
    i = r.randrange(len(lines) + 1) if r.random() < .3 else 0
    if i < len(lines):
        lines[i] = "\ufeff" + lines[i]
    else:
        lines.append("\ufeff")
    return lines


def m_crlf(r, lines):
    k = r.randrange(3)
    if k == 0: return [l + "\r" for l in lines]
    i = r.randrange(len(lines))
    lines[i] = lines[i] + ("\r" if k == 1 else " \r")
    return lines


def m_block_scalar(r, lines):
    i = pick_line(r, lines, lambda l: ": " in l and not l.lstrip().startswith("#"))
    if i is None: return None
    l = lines[i]
    j = l.index(": ") + 2
    ind = len(l) - len(l.lstrip(" "))
    hdr = r.choice(["|", "| ", "|  ", ">", "> ", "|-", "|+ ", "|2", "|#c", "| #c", "|\t", ">- ", "|1-", "|0"])
    val = l[j:]
    pad = " " * r.choice([ind, ind + 1, ind + 2, ind + 4])
    lines[i:i + 1] = [l[:j] + hdr, pad + val]
    return lines


def m_comment(r, lines):
    i = pick_line(r, lines, lambda l: ": " in l)
    if i is None: return None
    lines[i] = lines[i] + r.choice(["#c", " #c", "\t#c", "# c", " # c:d", " #"])
    if r.random() < .3:
        l = lines[i]
        k = l.index(": ") + 1
        lines[i] = l[:k] + "#c " + l[k:]
    return lines


def m_unit(r, lines):
    i = pick_line(r, lines, lambda l: any(ch.isdigit() for ch in l.split(":")[-1]) and ": " in l)
    if i is None: return None
    lines[i] = lines[i].rstrip() + r.choice(["m", "Mi", "%", " %", "s", "e3", "_000", ".", "0x", " seconds", ".0", "e", "E+2", ":30"])
    return lines


def m_nonascii(r, lines):
    i = pick_line(r, lines)
    if i is None: return None
    ch = r.choice(["é", "\u00a0", "\u2028", "\u200b", "“", "\u0085", "ℹ", "🙂", "\u3000", "\ufffd", "\u00ad", "\u2029", "–"])
    l = lines[i]
    k = r.randrange(len(l) + 1)
    lines[i] = l[:k] + ch + l[k:]
    return lines


def m_list_doc(r, lines):
    ind = r.choice(["  ", ""])
    out = ["- " + lines[0]] + [(ind + l if l.strip() else l) for l in lines[1:]]
    return out


def m_glued(r, lines):
    k = r.randrange(3)
    if k == 0: return lines + lines
    if k == 1: return lines + ["---" + r.choice(["", "---", " x"])] + lines
    return lines[:-1] + [lines[-1] + lines[0]] + lines[1:]


def m_delete_line(r, lines):
    i = r.randrange(len(lines))
    del lines[i]
    return lines


def m_ctrl(r, lines):
    i = pick_line(r, lines)
    if i is None: return None
    ch = r.choice(["\x00", "\x7f", "\x0b", "\x0c", "\x1b", "\x85", "\x08"])
    l = lines[i]
    k = r.randrange(len(l) + 1)
    lines[i] = l[:k] + ch + l[k:]
    return lines


def m_special_start(r, lines):
    i = pick_line(r, lines, lambda l: ": " in l)
    if i is None: return None
    l = lines[i]
    j = l.index(": ") + 2
    lines[i] = l[:j] + r.choice(["@", "`", "%", "!", "|x", ">x", "?", "? x", ": x", "- x", "[x", "]", "}", "{x", ",", "&", "*", "#"]) + l[j:]
    return lines


MUTATIONS = [m_tab_indent, m_tab_in_value, m_indent_off, m_colon, m_dash, m_quote, m_marker, m_dup_key,
             m_anchor, m_flow_broken, m_bom, m_crlf, m_block_scalar, m_comment, m_unit, m_nonascii,
             m_list_doc, m_glued, m_delete_line, m_ctrl, m_special_start]


def mutate(r, text):
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    names = []
    for _ in range(r.choice([1, 1, 1, 2])):
        m = r.choice(MUTATIONS)
        got = m(r, list(lines))
        if got is None or not got:
            continue
        lines = got
        names.append(m.__name__[2:])
    if not names:
        return None
    return "+".join(names), "\n".join(lines) + ("\n" if r.random() < .9 else "")


def kubectl_reads(kubectl, path):
    out = subprocess.run([kubectl, "label", "--local", "x=y", "-o", "json", "-f", path],
                         capture_output=True, env={**os.environ, "KUBECONFIG": "/dev/null"})
    objects = []
    dec = json.JSONDecoder()
    s = out.stdout.decode("utf-8", "replace")
    k = 0
    while True:
        while k < len(s) and s[k].isspace():
            k += 1
        if k >= len(s): break
        try:
            o, k = dec.raw_decode(s, k)
        except json.JSONDecodeError:
            break
        objects.append(o)
    stderr = out.stderr.decode("utf-8", "replace")
    prefix = f"error parsing {path}: "
    error = None
    for l in stderr.splitlines():
        if l.startswith("error: "): l = l[7:]
        if l.startswith(prefix):
            error = l[len(prefix):]
            break
    return {"objects": objects, "error": error, "stderr": stderr}


def main():
    out, count = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    kubectl = sys.argv[4] if len(sys.argv) > 4 else "kubectl.1.33"
    os.makedirs(out, exist_ok=True)
    srcs = sources()
    r = random.Random(seed)
    jobs = []
    n = 0
    while n < count:
        name, text = r.choice(srcs)
        m = mutate(r, text)
        if m is None: continue
        path = os.path.join(out, f"{n:05}.yaml")
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(m[1])
        jobs.append((path, m[0], name))
        n += 1

    def run(job):
        path, mutation, source = job
        res = kubectl_reads(kubectl, path)
        res.update(mutation=mutation, source=source)
        with open(path[: -len(".yaml")] + ".kubectl.json", "w") as f:
            json.dump(res, f)

    with ThreadPoolExecutor(2) as ex:
        list(ex.map(run, jobs))


if __name__ == "__main__":
    main()
