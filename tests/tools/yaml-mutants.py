#!/usr/bin/env python3
"""Mutants of valid manifests, each read by kubectl (`kubectl label --local -f FILE x=y -o json`).

Writes OUT/NNNNN.yaml (the mutant) and OUT/NNNNN.kubectl.json ({"mutation", "source",
"objects": the objects kubectl printed, "error": the text after `error parsing FILE: ` or
null, "stderr"}). The ignored test `malformed::mutants_read_as_kubectl_reads_them`
(`HPA_MUTANTS=OUT`) compares hpa-lint's reading of each with kubectl's.

Usage: yaml-mutants.py OUT COUNT [SEED] [KUBECTL] [CLASS]
CLASS: `structure` (the default: tabs, indentation, quotes, markers...), `values` (scalars and
keys as go-yaml v2's YAML 1.1 resolver reads them, tags, escapes, block scalars), `streams`
(JSON streams, `kind: List`, empty and scalar documents, `...`, directives) or `all`.
"""
import glob, json, os, random, re, subprocess, sys
import yaml  # PyYAML: only to write a manifest as JSON for the stream mutants
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


def pick_pair(r, lines, pred):
    """A line `pred` picks that holds `key: value`: its index, its text and where its value starts."""
    i = pick_line(r, lines, pred)
    if i is None: return None
    return i, lines[i], lines[i].index(": ") + 2


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
    picked = pick_pair(r, lines, lambda l: ": " in l)
    if picked is None: return None
    i, l, j = picked
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
    picked = pick_pair(r, lines, lambda l: ": " in l and not l.lstrip().startswith("#"))
    if picked is None: return None
    i, l, j = picked
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
    picked = pick_pair(r, lines, lambda l: ": " in l)
    if picked is None: return None
    i, l, j = picked
    lines[i] = l[:j] + r.choice(["@", "`", "%", "!", "|x", ">x", "?", "? x", ": x", "- x", "[x", "]", "}", "{x", ",", "&", "*", "#"]) + l[j:]
    return lines


# Scalar values as go-yaml v2 resolves them (YAML 1.1 `resolve.go`), and tags, escapes, block
# scalars: each decides what a field's value is.
SCALARS = ["0x1F", "0o17", "017", "0b101", "+5", "-0", "1_000", "1e3", "1E3", ".5", "5.", "1:20", "-1:20",
           ".inf", "-.Inf", "+.INF", ".NaN", "~", "null", "Null", "NULL", "nULL", "y", "Y", "yes", "Yes", "YES",
           "on", "On", "off", "OFF", "n", "N", "no", "True", "tRUE", "FALSE", "2001-12-14",
           "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5", "2002-12-14T21:59:43Z",
           "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616",
           "-9223372036854775808", "-9223372036854775809", "1e400", "-1e400", "1e-400", "0.0", "-0.0",
           "'5'", '"5"', "!!str 5", '!!int "5"', "!!int 0x1F", "!!float 5", "!!float '1e3'", "!!bool yes",
           "!!bool 'true'", '!!null ""', "!!null ~", "!!binary aGVsbG8=", "!!binary 5", "!foo bar", "!foo 5",
           "!!timestamp 2001-12-14", "!!str", "!!map {}", "!!seq []", "<<", "=", "a#b", "a #b", "5 ", "5\t",
           "5 # c", "0755", "08", "0x", "0xG", "0b", "0b2", "+0x1F", "-0x1F", "-0b101", "0o8", "1__0",
           "_1", "1_", "+.5", "-.5", "1.5e+3", "1.5E-3", "1e+3", "0.", "+", "-", ".", "..", "1.2.3",
           "3:25:45", "190:20:30.15", "1:60", "0:0", "1:2:3.4", "'a''b'", "''", '""', "'''x'", '"\\t5"',
           "1 2", "5%", "100m", "1Gi", "1e3m", "0x1Fm", ".5Gi", "1_000Mi", "+5Mi", "yes:", "a: b: c"]

ESCAPES = ["\\x41", "\\u00e9", "\\U0001F600", "\\N", "\\_", "\\L", "\\P", "\\e", "\\/", "\\q", "\\0", "\\a",
           "\\b", "\\v", "\\f", "\\ ", "\\\t", "\\\"", "\\\\", "\\x4", "\\u00", "\\UFFFFFFFF", "\\uD800",
           "\\uDE00", "\\x00", "\\u0000"]

KEYS = ["5", "yes", "~", "1.0", "null", "Null", "true", "y", "n", "on", "off", "No", "0x1F", "017", "0o17",
        "0b101", "1_000", "1e3", "1:20", ".inf", "-.Inf", ".NaN", "-0", "+5", "2001-12-14",
        "2001-12-14t21:59:43.10-05:00", "9223372036854775808", "18446744073709551616", "-9223372036854775809",
        "1e400", "'5'", '"5"', "!!str 5", '!!int "5"', "!!float 5", "!!bool yes", '!!null ""', "!!binary aGVsbG8=",
        "? 5", "? [1, 2]", "? {a: b}", "[1, 2]", "{a: b}", "5.0", "1.5", "0.1", "1e20", "1e21", "123456789012",
        "1.0e+6", "-1", "''", '""', "a#b", '"\\u00e9"']


def value_line(l):
    s = l.lstrip(" ")
    return ": " in l and not s.startswith("#") and l.rstrip()[l.index(": ") + 1:].strip() != ""


def m_scalar_value(r, lines):
    picked = pick_pair(r, lines, value_line)
    if picked is None: return None
    i, l, j = picked
    lines[i] = l[:j] + r.choice(SCALARS)
    return lines


def m_scalar_key(r, lines):
    i = pick_line(r, lines, lambda l: ": " in l and not l.lstrip().startswith(("#", "- ")))
    if i is None: return None
    l = lines[i]
    ind = l[: len(l) - len(l.lstrip(" "))]
    k = r.choice(KEYS)
    v = r.choice(["a", "1", "", "{}", "yes", "~"])
    lines.insert(i + r.randint(0, 1), ind + k + ":" + (" " + v if v else ""))
    if r.random() < .2:
        lines.insert(i, ind + k + ": b")
    return lines


def m_quoted_escape(r, lines):
    picked = pick_pair(r, lines, value_line)
    if picked is None: return None
    i, l, j = picked
    v = l[j:].strip().strip("'\"")
    k = r.randrange(len(v) + 1)
    lines[i] = l[:j] + '"' + v[:k] + r.choice(ESCAPES) + v[k:] + '"'
    if r.random() < .2:
        lines[i] = l[:j] + "'" + v[:k] + r.choice(["''", "'' ", "\\", "\\n"]) + v[k:] + "'"
    return lines


def m_block_value(r, lines):
    picked = pick_pair(r, lines, value_line)
    if picked is None: return None
    i, l, j = picked
    v = l[j:].strip()
    ind = len(l) - len(l.lstrip(" "))
    hdr = r.choice(["|", ">", "|-", ">-", "|+", ">+", "|2", "|2-", "|-2", ">+", "|1", ">2+", "|4", "|9"])
    pad = " " * r.choice([ind + 1, ind + 2, ind + 3, ind + 4])
    body = [pad + v]
    extra = r.randrange(5)
    if extra == 1: body += ["", ""]
    elif extra == 2: body += [pad + v, "", pad + "  more"]
    elif extra == 3: body = ["", pad + v, " " * (len(pad) + 2) + "x", ""]
    elif extra == 4: body += [pad + "# not a comment", pad[:-1] + "  "]
    lines[i:i + 1] = [l[:j] + hdr] + body
    return lines


def m_multiline_plain(r, lines):
    picked = pick_pair(r, lines, value_line)
    if picked is None: return None
    i, l, j = picked
    ind = len(l) - len(l.lstrip(" "))
    pad = " " * r.choice([ind + 1, ind + 2, ind + 4])
    cont = r.choice([["x"], ["", "x"], ["x", "y"], ["", "", "x"], ["5"], ["x #c"], ["x "], ["- x"], ["x: y"]])
    lines[i:i + 1] = [lines[i]] + [(pad + c if c else "") for c in cont]
    if r.random() < .3:
        q = r.choice(['"', "'"])
        lines[i] = l[:j] + q + l[j:].strip().strip("'\"")
        lines[i + len(cont)] += q
    return lines


def to_json(r, text):
    try:
        docs = [d for d in yaml.safe_load_all(text) if d is not None]
    except Exception:
        return None
    if not docs: return None
    out = []
    for d in docs:
        s = json.dumps(d, indent=r.choice([None, 2]), ensure_ascii=r.random() < .5, default=str)
        try:
            s.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a lone surrogate read from a `\ud800` escape
            s = json.dumps(d, default=str)
        out.append(s)
    return out


def m_json_stream(r, lines):
    docs = to_json(r, "\n".join(lines))
    if not docs: return None
    d = docs[0]
    k = r.randrange(14)
    if k == 0: out = "".join(docs)
    elif k == 1: out = "\n".join(docs) + "\n" + r.choice(["kind: x\n", "---\na: b\n", "- 1\n", "a: [\n", "'x'\n"]) + "\n".join(lines)
    elif k == 2: out = "[" + ",".join(docs) + "]"
    elif k == 3: out = d.rstrip("}") + ",}"
    elif k == 4: out = d[:-1] + ', "kind": "Other"}'
    elif k == 5:
        num = r.choice(["1.0", "1e2", "-0", "1E2", "2.5", "1e400", "0.1e1", "-0.0", "1e-2", "100000000000000000000"])
        out = re.sub(r'("(?:minReplicas|maxReplicas|averageUtilization|stabilizationWindowSeconds|periodSeconds|value)": ?)-?\d+', lambda m: m.group(1) + num, d, count=1)
        if out == d: return None
    elif k == 6:
        esc = r.choice(["\\u0041", "\\u00e9", "\\ud83d\\ude00", "\\ud800", "\\u0000", "\\/", "\\x41", "\\'", "\\U0001F600"])
        out = re.sub(r'("name": ?")', lambda m: m.group(1) + esc, d, count=1)
        if out == d: return None
    elif k == 7:
        b = r.choice(["\udcff", "\udcc3(", "\udced\udca0\udc80", "\udcc0\udcaf", "\udce2\udc82"])
        out = re.sub(r'("name": ?")', lambda m: m.group(1) + b, d, count=1)
        if out == d: return None
    elif k == 8: out = "\n---\n".join(docs) + "\n---\n" + d
    elif k == 9: out = r.choice(["  ", "\n", "\t", "\ufeff", "# c\n"]) + d
    elif k == 10: out = d + r.choice(["]", "}", ",", "x", " // c", "\n...\n", "\n---\n", "null", "5", "\"s\""])
    elif k == 11: out = '{"apiVersion": "v1", "kind": "List", "items": [' + ",".join(docs) + "]}"
    elif k == 12: out = d[: r.randrange(1, len(d))]
    else:
        out = re.sub(r'("kind": ?"[^"]*")', lambda m: m.group(1) + ', ' + m.group(1), d, count=1)
    return out.split("\n")


def m_list_kind(r, lines):
    docs = [l for l in "\n".join(lines).split("\n---") if l.strip()]
    items = []
    for d in docs[: r.randint(1, 3)]:
        ls = [l for l in d.split("\n") if l.strip() and not l.startswith("---")]
        if not ls: continue
        items += ["- " + ls[0]] + ["  " + l for l in ls[1:]]
    head = r.choice([["apiVersion: v1", "kind: List", "items:"], ["kind: List", "apiVersion: v1", "items:"],
                     ["apiVersion: v1", "kind: List", "metadata: {}", "items:"], ["kind: List", "items:"],
                     ["apiVersion: v1", "kind: HorizontalPodAutoscalerList", "items:"],
                     ["apiVersion: autoscaling/v2", "kind: HorizontalPodAutoscalerList", "items:"]])
    if r.random() < .2: items = ["- ~"] + items
    if r.random() < .1: items = ["- []"] + items
    if r.random() < .1: return head[:-1] + ["items: " + r.choice(["[]", "~", "{}", "5", ""])]
    return head + items


def m_stream(r, lines):
    text = lines
    k = r.randrange(10)
    extra = r.choice(["---", "--- # c", "---\n# only a comment", "---\n", "...", "---\n...", "--- ~", "--- 5",
                      "--- 'text'", "--- [a]", "- a", "--- |\n  x", "---\n---", "...\n---", "--- null", "--- {}",
                      "--- !!str", "--- &a", "%YAML 1.1\n---", "%TAG ! tag:x.com,2000:\n---", "---\n%YAML 1.1"])
    if k < 4: return extra.split("\n") + text
    if k < 7: return text + extra.split("\n")
    if k == 7:
        d = r.choice([["%YAML 1.1", "---"], ["%YAML 1.2", "---"], ["%YAML 1.1", "%YAML 1.1", "---"],
                      ["%TAG ! tag:x.com,2000:", "---"], ["%TAG !e! tag:x.com,2000:", "---"], ["%FOO bar", "---"],
                      ["%YAML 1.1"], ["%YAML 2.0", "---"], ["# c", "%YAML 1.1", "---"]])
        return d + text
    if k == 8: return text + ["...", "---"] + text
    return text + ["..."] + r.choice([["# c"], [], ["---"], ["a: b"], ["%YAML 1.1", "---", "a: b"]])


MUTATIONS = [m_tab_indent, m_tab_in_value, m_indent_off, m_colon, m_dash, m_quote, m_marker, m_dup_key,
             m_anchor, m_flow_broken, m_bom, m_crlf, m_block_scalar, m_comment, m_unit, m_nonascii,
             m_list_doc, m_glued, m_delete_line, m_ctrl, m_special_start]
# The second sweep's classes: values and keys as go-yaml v2 resolves them, and streams.
VALUES = [m_scalar_value, m_scalar_value, m_scalar_key, m_quoted_escape, m_block_value, m_multiline_plain]
STREAMS = [m_json_stream, m_json_stream, m_list_kind, m_stream]
CLASSES = {"structure": MUTATIONS, "values": VALUES, "streams": STREAMS, "all": MUTATIONS + VALUES + STREAMS}


def mutate(r, text, mutations):
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    names = []
    for _ in range(r.choice([1, 1, 1, 2])):
        m = r.choice(mutations)
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
    mutations = CLASSES[sys.argv[5] if len(sys.argv) > 5 else "structure"]
    os.makedirs(out, exist_ok=True)
    srcs = sources()
    r = random.Random(seed)
    jobs = []
    n = 0
    while n < count:
        name, text = r.choice(srcs)
        m = mutate(r, text, mutations)
        if m is None: continue
        path = os.path.join(out, f"{n:05}.yaml")
        # surrogateescape: the stream mutants write ill-formed UTF-8 as lone surrogates.
        with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
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
