#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""elfsites.py - read what a __mcount_loc table names, independently of
our tool's own ELF code (no libelf, no binutils, only the ELF spec).

    elfsites.py FILE.o...      print "FILE: SECTION+0xOFFSET" per entry

Each table slot is an address-sized word with a relocation against a
symbol; the site is that symbol's section at symbol value + addend
(RELA addend, or the word itself for REL), as the linker computes it:
on SH, whose R_SH_DIR32 is "partial in place", GNU ld takes the addend
from the word even in a RELA table and ignores r_addend (an entry with
its addend in r_addend and a zero word links to the symbol itself).
Relocatable objects only."""
import struct
import sys

SHT_SYMTAB, SHT_RELA, SHT_REL = 2, 4, 9
SHN_UNDEF, SHN_LORESERVE, SHN_XINDEX = 0, 0xFF00, 0xFFFF
EM_MIPS = 8
EM_SH = 42
TABLE = "__mcount_loc"
# The table GCC writes itself for -fpatchable-function-entry: one
# address per pad, relocated like ours (riscv64's reference, agree.py).
PADS_TABLE = "__patchable_function_entries"


class Elf:
    """The sections, names and symbols of one ELF file."""

    def __init__(self, data):
        if data[:4] != b"\x7fELF":
            raise ValueError("not an ELF file")
        self.data = data
        self.is64 = data[4] == 2
        self.end = "<" if data[5] == 1 else ">"
        self.machine = struct.unpack_from(self.end + "H", data, 18)[0]
        if self.is64:
            hdr = struct.unpack_from(self.end + "16xHHIQQQIHHHHHH", data)
            shoff, shentsize, shnum, shstrndx = hdr[5], hdr[10], hdr[11], hdr[12]
        else:
            hdr = struct.unpack_from(self.end + "16xHHIIIIIHHHHHH", data)
            shoff, shentsize, shnum, shstrndx = hdr[5], hdr[10], hdr[11], hdr[12]
        self.sections = []
        first = self._shdr(shoff)
        if shnum == 0:
            shnum = first["size"]
        if shstrndx == SHN_XINDEX:
            shstrndx = first["link"]
        for i in range(shnum):
            self.sections.append(self._shdr(shoff + i * shentsize))
        names = self.sections[shstrndx]
        for s in self.sections:
            s["name"] = self.cstr(names["offset"] + s["name_off"])
        self.symbols = self._symbols()

    def _shdr(self, off):
        if self.is64:
            f = struct.unpack_from(self.end + "IIQQQQIIQQ", self.data, off)
        else:
            f = struct.unpack_from(self.end + "IIIIIIIIII", self.data, off)
        keys = ("name_off", "type", "flags", "addr", "offset", "size",
                "link", "info", "addralign", "entsize")
        return dict(zip(keys, f))

    def cstr(self, off):
        return self.data[off:self.data.index(b"\0", off)].decode()

    def contents(self, s):
        return self.data[s["offset"]:s["offset"] + s["size"]]

    def _symbols(self):
        tabs = [s for s in self.sections if s["type"] == SHT_SYMTAB]
        if not tabs:
            return []
        tab = tabs[0]
        strtab = self.sections[tab["link"]]
        xindex = [s for s in self.sections if s["type"] == 18]  # SYMTAB_SHNDX
        shndx_words = None
        if xindex:
            raw = self.contents(xindex[0])
            shndx_words = struct.unpack(self.end + "%dI" % (len(raw) // 4), raw)
        fmt = self.end + ("IBBHQQ" if self.is64 else "IIIBBH")
        size = struct.calcsize(fmt)
        out = []
        for i in range(tab["size"] // size):
            f = struct.unpack_from(fmt, self.data, tab["offset"] + i * size)
            if self.is64:
                name, info, _, shndx, value, _ = f
            else:
                name, value, _, info, _, shndx = f
            if shndx == SHN_XINDEX and shndx_words:
                shndx = shndx_words[i]
            out.append({"name": self.cstr(strtab["offset"] + name),
                        "value": value, "shndx": shndx, "info": info})
        return out

    def relocations(self, target):
        """(offset, symbol index, addend or None) of `target`'s relocations."""
        for s in self.sections:
            if s["type"] not in (SHT_RELA, SHT_REL) or s["info"] != target:
                continue
            rela = s["type"] == SHT_RELA
            if self.is64:
                fmt = self.end + ("QQq" if rela else "QQ")
            else:
                fmt = self.end + ("IIi" if rela else "II")
            size = struct.calcsize(fmt)
            for i in range(s["size"] // size):
                f = struct.unpack_from(fmt, self.data, s["offset"] + i * size)
                yield f[0], self.r_sym(f[1]), (f[2] if rela else None)

    def r_sym(self, info):
        """The symbol index of an r_info.  64-bit MIPS does not pack it
        as one 64-bit word (symbol << 32 | type) but as a 32-bit symbol
        index followed by four bytes (r_ssym, r_type3, r_type2, r_type):
        read as one word in the file's byte order, that puts the symbol
        in the high half on big-endian files, as usual, and in the low
        half on little-endian ones (mips64el)."""
        if not self.is64:
            return info >> 8
        if self.machine == EM_MIPS and self.end == "<":
            return info & 0xFFFFFFFF
        return info >> 32


def table_sites(data, name=TABLE, with_r_addend=False):
    """Sorted list of (section name, offset) named by __mcount_loc (or
    the table called NAME), as the linker resolves it, over every section
    of that name: GCC writes one __patchable_function_entries per text
    section (SHF_LINK_ORDER), and so may a tool.  With WITH_R_ADDEND, an
    SH table is read as a module loader does instead
    (arch/sh/kernel/module.c adds r_addend to the word), which is the
    same where r_addend is 0 (ours) but not for the kernel's C tool,
    which writes the addend in r_addend and 0 in the word (agree.py)."""
    elf = Elf(data)
    tables = [i for i, s in enumerate(elf.sections) if s["name"] == name]
    word = 8 if elf.is64 else 4
    sites = []
    for table in tables:
        sites.extend(_table_sites(elf, table, word, with_r_addend))
    return sorted(sites)


def _table_sites(elf, table, word, with_r_addend):
    raw = elf.contents(elf.sections[table])
    sites = []
    in_place = elf.machine == EM_SH
    for off, sym, addend in elf.relocations(table):
        if addend is None or in_place:
            slot = struct.unpack_from(elf.end + ("Q" if word == 8 else "I"),
                                      raw, off)[0]
            addend = slot + (addend if addend is not None and with_r_addend
                             else 0)
        s = elf.symbols[sym]
        if s["shndx"] in (SHN_UNDEF,) or s["shndx"] >= SHN_LORESERVE:
            sites.append(("?" + s["name"], addend))
            continue
        # Modulo the word, as the linker computes the entry: on ELF32 a
        # REL table's implicit addend is a 32-bit word, and an entry
        # anchored on a symbol placed after its site holds a negative
        # one (the kernel's tool does this on i386, whose assembler
        # drops unused section symbols: .text+0 as file_ns_capable
        # 0xc + 0xfffffff4).
        sites.append((elf.sections[s["shndx"]]["name"],
                      (s["value"] + addend) & ((1 << (8 * word)) - 1)))
    return sites


def section_bytes(data):
    """{name: bytes} of the sections that hold code or data (not the
    symbol, string and relocation tables, which a tool may extend)."""
    elf = Elf(data)
    out = {}
    for s in elf.sections:
        # PROGBITS, NOBITS; not the tables (a tool may write or move them)
        if s["type"] in (1, 8) and s["name"] not in (TABLE, PADS_TABLE):
            out.setdefault(s["name"], []).append(
                elf.contents(s) if s["type"] == 1 else b"")
    return out


def main(argv):
    for path in argv:
        with open(path, "rb") as f:
            for name, off in table_sites(f.read()):
                print("%s: %s+0x%x" % (path, name, off))


if __name__ == "__main__":
    main(sys.argv[1:])
