# SPDX-License-Identifier: GPL-2.0-only
"""dump_oracle - `recordmcount --dump` checked against readelf and objdump.

For an object, every entry of every table section (__mcount_loc, and
__patchable_function_entries where the compiler's list stayed) is worked
out from `readelf -rW` (relocation: symbol + addend), `readelf -sW` (where
that symbol is) and `objdump -dr` (the instruction there, the hook
relocation inside it, the function symbol it falls in).  The dump's text
and JSON must both say exactly that, entry by entry: place, function,
bytes and state (call to the hook / nop / pad of k NOPs / unexpected).
Hooks that objdump shows relocated against a hook symbol but that no
entry names must be listed as unrecorded.  For a linked program, entries
are the table's words between __start_mcount_loc and __stop_mcount_loc
(`nm`, `objdump -s`) and the bytes at each address (`objdump -d`).
"""

import json
import re
import struct

from harness import HOOKS, check, must

TEXT_ENTRY = re.compile(
    r"^\s+(\d+)\s+(\S+)\s+(\S+)\s+((?:[0-9a-f]{2} )*[0-9a-f]{2})\s+"
    r"(call|nop|pad|unexpected|unknown)(?: (.*))?$")
TEXT_UNRECORDED = re.compile(r"^  (\S+)\s+(\S+)\s+(.+?)( \(untraced "
                             r"section\))?$")


def sections(path):
    """{index: (name, file offset, sh_info)} from readelf -SW."""
    out, _ = must(["readelf", "-SW", path])
    result = {}
    for line in out.splitlines():
        m = re.match(r"^\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+"
                     r"([0-9a-f]+)\s.*\s(\d+)\s+(\d+)\s+(\d+)$", line)
        if m and m.group(2) != "NULL":
            result[int(m.group(1))] = (m.group(2), int(m.group(4), 16),
                                       int(m.group(6)))
    return result


def symbols(path):
    """[(name, type, section index or None, value, size)] from readelf."""
    out, _ = must(["readelf", "-sW", path])
    result = []
    for line in out.splitlines():
        f = line.split()
        if len(f) < 7 or not f[0].endswith(":") or not f[0][:-1].isdigit():
            continue
        name = f[7] if len(f) > 7 else ""
        ndx = int(f[6]) if f[6].isdigit() else None
        result.append((name, f[3], ndx, int(f[1], 16), int(f[2], 0)))
    return result


def table_relocs(path, secs):
    """[(symbol text, addend)] for every table section's slots, tables
    in section order, slots in offset order (readelf -rW; a REL table's
    addend is the 32-bit slot itself, read from the file)."""
    out, _ = must(["readelf", "-rW", path])
    names = {"." + k + n for k in ("rela", "rel")
             for n in ("__mcount_loc", "__patchable_function_entries")}
    blocks, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^Relocation section '([^']*)'", line)
        if m:
            cur = m.group(1) if m.group(1) in names else None
            if cur:
                blocks.setdefault(cur, []).append([])
            continue
        f = line.split()
        if cur and len(f) >= 5 and re.match(r"^[0-9a-f]+$", f[0]):
            m = re.match(r"^(\S+)(?: ([+-]) ([0-9a-f]+))?$", " ".join(f[4:]))
            addend = int(m.group(3), 16) if m.group(3) else 0
            blocks[cur][-1].append((int(f[0], 16), m.group(1),
                                    -addend if m.group(2) == "-" else addend))
    with open(path, "rb") as fh:
        data = fh.read()
    result, seen = [], {}
    for i in sorted(secs):
        name, _off, info = secs[i]
        if name not in names:
            continue
        k = seen.get(name, 0)
        seen[name] = k + 1
        for off, sym, addend in sorted(blocks[name][k]):
            if name.startswith(".rel_"):
                addend += struct.unpack_from("<i", data,
                                             secs[info][1] + off)[0]
            result.append((sym, addend))
    return result


def objdump_code(path):
    """{section: {offset: (bytes hex, text, [relocated symbols])}}."""
    out, _ = must(["objdump", "-drw", path])
    result, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^Disassembly of section (.*):$", line)
        if m:
            cur = result.setdefault(m.group(1), {})
            continue
        m = re.match(r"^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2} )+)\s*(.*)$", line)
        if m and cur is not None:
            # -w puts the instruction's relocations on its own line.
            text = m.group(3).split("\t")[0].strip()
            rels = [re.split(r"[-+]", r.group(1))[0] for r in
                    re.finditer(r"\t[0-9a-f]+: R_\S+\t(\S+)", m.group(3))]
            cur[int(m.group(1), 16)] = [bytes.fromhex(m.group(2)), text,
                                        rels]
    return result


def function_at(syms, shndx, off):
    """The FUNC symbol containing off, or the one a pad runs into (the
    first function starting within 24 bytes after off, negative)."""
    for name, typ, ndx, value, size in syms:
        if typ == "FUNC" and ndx == shndx and value <= off < value + size:
            return name, off - value
    for name, typ, ndx, value, _s in sorted(syms, key=lambda s: s[3]):
        if typ == "FUNC" and ndx == shndx and off < value <= off + 24:
            return name, off - value
    return None, None


def expected_entries(path):
    """What every table entry of an object is, by readelf and objdump."""
    secs = sections(path)
    syms = symbols(path)
    code = objdump_code(path)
    by_name = {}
    for name, typ, ndx, value, _size in syms:
        if typ == "SECTION" and ndx in secs:
            by_name.setdefault(secs[ndx][0], (ndx, 0))
        elif name:
            by_name.setdefault(name, (ndx, value))
    result = []
    for sym, addend in table_relocs(path, secs):
        ndx, value = by_name[sym]
        off = value + addend
        sec = secs[ndx][0]
        fn, fo = function_at(syms, ndx, off)
        insns = code.get(sec, {})
        raw, text, rels = insns[off]
        hooks = [r for r in rels if r in HOOKS]
        if hooks:
            state, target, data = "call", hooks[0], raw
        elif text.startswith("nop") or text.startswith("xchg   %ax,%ax"):
            # A pad: the run of one-byte NOPs from here, or one NOP.
            run, at, k = b"", off, 0
            while at in insns and insns[at][1] == "nop":
                run += insns[at][0]
                at += len(insns[at][0])
                k += 1
            if k > 1 or (k == 1 and raw == b"\x90"):
                state, target, data = "pad", "%d NOP%s" % (
                    k, "" if k == 1 else "s"), run
            else:
                state, target, data = "nop", None, raw
        else:
            # Bytes that are no hook: the dump shows the next 8 of them
            # (fewer at the section's end), as the runtime's refusal does.
            run, at = b"", off
            while at in insns and len(run) < 8:
                run += insns[at][0]
                at += len(insns[at][0])
            state, target, data = "unexpected", None, run[:8]
        result.append({"section": sec, "offset": off, "function": fn,
                       "function_offset": fo, "bytes": data,
                       "state": state, "target": target})
    return result


def unrecorded_hooks(path, entries):
    """(section, offset) of every hook call objdump shows that no entry
    names."""
    named = {(e["section"], e["offset"]) for e in entries}
    result = set()
    for sec, insns in objdump_code(path).items():
        for off, (_raw, _text, rels) in insns.items():
            if any(r in HOOKS for r in rels) and (sec, off) not in named:
                result.add((sec, off))
    return result


def check_object_dump(tool, path):
    """--dump's JSON and text for one object against readelf/objdump."""
    want = expected_entries(path)
    rc, out, err = tool("--dump", "--format=json", path)
    check(rc == 0 and not err, "--dump --format=json: exit %d: %s"
          % (rc, err.strip()[:300]))
    got = json.loads(out)
    check(got.get("schema_version") == 1, "json: schema_version %r"
          % got.get("schema_version"))
    check(got["type"] == "relocatable" and got["file"] == path,
          "json header %r" % {k: got[k] for k in ("file", "type")})
    check(len(got["entries"]) == len(want), "json: %d entries, readelf "
          "shows %d" % (len(got["entries"]), len(want)))
    for k, (g, w) in enumerate(zip(got["entries"], want)):
        check(g["index"] == k, "entry %d has index %r" % (k, g["index"]))
        for key in ("section", "offset", "function", "function_offset",
                    "state"):
            check(g[key] == w[key], "entry %d %s: dump says %r, readelf/"
                  "objdump %r" % (k, key, g[key], w[key]))
        # The text's one "target" word is three JSON fields.
        symbol = w["target"] if w["state"] == "call" else None
        nops = int(w["target"].split()[0]) if w["state"] == "pad" else None
        check((g["symbol"], g["nops"], g["target_address"], g["indirect"])
              == (symbol, nops, None, False), "entry %d: dump says symbol "
              "%r nops %r target_address %r indirect %r, readelf/objdump "
              "%r %r None False" % (k, g["symbol"], g["nops"],
                                    g["target_address"], g["indirect"],
                                    symbol, nops))
        if w["bytes"] is not None:
            check(g["bytes"] == w["bytes"].hex(), "entry %d bytes: dump "
                  "%s, objdump %s" % (k, g["bytes"], w["bytes"].hex()))
    unrec = unrecorded_hooks(path, want)
    got_unrec = {(u["section"], u["offset"]) for u in got["unrecorded"]}
    check(got_unrec == unrec, "json unrecorded %s, objdump shows %s"
          % (sorted(got_unrec), sorted(unrec)))

    rc, out, err = tool("--dump", path)
    check(rc == 0 and not err, "--dump: exit %d: %s" % (rc, err[:300]))
    lines = out.splitlines()
    check(lines[0] == "%s: %s relocatable, %d table entr%s"
          % (path, got["arch"], len(want), "y" if len(want) == 1 else "ies"),
          "text header %r" % lines[0])
    rows = [TEXT_ENTRY.match(x) for x in lines[1:]]
    rows = [m for m in rows if m]
    check(len(rows) == len(want), "text: %d entry lines, readelf shows %d"
          % (len(rows), len(want)))
    for k, (m, w) in enumerate(zip(rows, want)):
        site = "%s+%#x" % (w["section"], w["offset"])
        fo = w["function_offset"]
        func = "?" if w["function"] is None else "%s%s%#x" % (
            w["function"], "-" if fo < 0 else "+", abs(fo))
        check(int(m.group(1)) == k and m.group(2) == site.replace(
            "+0x0", "+0x0") and m.group(3) == func,
            "text entry %d: %r, want %s %s" % (k, m.group(0), site, func))
        check(m.group(5) == w["state"] and (m.group(6) or None) ==
              w["target"], "text entry %d state %r %r, want %r %r"
              % (k, m.group(5), m.group(6), w["state"], w["target"]))
        if w["bytes"] is not None:
            check(m.group(4) == w["bytes"].hex(" "), "text entry %d bytes "
                  "%s, objdump %s" % (k, m.group(4), w["bytes"].hex(" ")))
    tail = [x for x in lines if x.startswith("hooks not in the table: ")]
    check(tail == ["hooks not in the table: %d" % len(unrec)],
          "text unrecorded count %r, objdump shows %d" % (tail, len(unrec)))
    return want


def check_linked_dump(tool, prog):
    """--dump of a linked non-PIE program: the words between the
    __start/__stop_mcount_loc symbols, and the code at each."""
    out, _ = must(["nm", prog])
    addr = {f[2]: int(f[0], 16) for f in (x.split() for x in
                                           out.splitlines()) if len(f) == 3}
    start, stop = addr["__start_mcount_loc"], addr["__stop_mcount_loc"]
    out, _ = must(["objdump", "-s", "--start-address=%#x" % start,
                   "--stop-address=%#x" % stop, prog])
    data = b""
    for line in out.splitlines():
        m = re.match(r"^ ([0-9a-f]+) ((?:[0-9a-f]{8} ?){1,4})", line)
        if m:
            data += bytes.fromhex(m.group(2).replace(" ", ""))
    words = [struct.unpack_from("<Q", data, i)[0]
             for i in range(0, len(data), 8)]
    check(words, "objdump shows an empty table")
    code = {}
    for sec, insns in objdump_code(prog).items():
        for off, (raw, text, _r) in insns.items():
            code[off] = (raw, text)
    rc, out, err = tool("--dump", "--format=json", prog)
    check(rc == 0 and not err, "--dump: exit %d: %s" % (rc, err[:300]))
    got = json.loads(out)
    check([e["address"] for e in got["entries"]] == words,
          "dump addresses %s, the table holds %s"
          % ([hex(e["address"] or 0) for e in got["entries"]],
             [hex(w) for w in words]))
    for e in got["entries"]:
        raw, text = code[e["address"]]
        call = re.search(r"call\s+([0-9a-f]+) <(%s)(@plt)?>" %
                         "|".join(HOOKS), text)
        want = "call" if call else "nop"
        check(e["state"] == want and e["bytes"] == raw.hex(),
              "%#x: dump %s %s, objdump %s %r" % (e["address"], e["state"],
                                                  e["bytes"], raw.hex(),
                                                  text))
        if call:
            check(e["target_address"] == int(call.group(1), 16),
                  "%#x: dump calls %r, objdump %s" % (
                      e["address"], e["target_address"], call.group(1)))
