# SPDX-License-Identifier: GPL-2.0-only
"""elfmini - a small, independent ELF reader for the tests.

Written from the System V gABI, not from the tool's C code, so the tests
can check the tool's output without trusting its own model of ELF.
Reads ELFCLASS32/64 in either byte order; only what the tests need:
the file header, section headers, symbols, relocations and contents.
"""

import struct

SHT_SYMTAB = 2
SHT_RELA = 4
SHT_NOBITS = 8
SHT_REL = 9
SHF_ALLOC = 0x2
SHF_EXECINSTR = 0x4
STT_SECTION = 3
ET_REL, ET_EXEC, ET_DYN = 1, 2, 3
EM_386, EM_X86_64 = 3, 62


class ElfError(Exception):
    pass


class Section:
    def __init__(self, index, fields):
        (self.name_off, self.type, self.flags, self.addr, self.offset,
         self.size, self.link, self.info, self.addralign,
         self.entsize) = fields
        self.index = index
        self.name = ""


class Symbol:
    def __init__(self, index, name_off, value, size, info, other, shndx):
        self.index = index
        self.name_off = name_off
        self.value = value
        self.size = size
        self.bind = info >> 4
        self.type = info & 0xF
        self.other = other
        self.shndx = shndx
        self.name = ""


class Reloc:
    def __init__(self, offset, sym, type_, addend):
        self.offset = offset
        self.sym = sym
        self.type = type_
        self.addend = addend  # None for REL


class Elf:
    def __init__(self, data):
        if isinstance(data, str):
            with open(data, "rb") as f:
                data = f.read()
        self.data = data
        if len(data) < 16 or data[:4] != b"\x7fELF":
            raise ElfError("not ELF")
        self.is64 = data[4] == 2
        self.e = "<" if data[5] == 1 else ">"
        self.addr_size = 8 if self.is64 else 4
        if self.is64:
            hdr = struct.unpack_from(self.e + "HHIQQQIHHHHHH", data, 16)
        else:
            hdr = struct.unpack_from(self.e + "HHIIIIIHHHHHH", data, 16)
        (self.type, self.machine, _ver, self.entry, self.phoff, self.shoff,
         self.flags, self.ehsize, self.phentsize, self.phnum,
         self.shentsize, self.shnum, self.shstrndx) = hdr
        self.sections = self._read_sections()
        self._symbols = None

    # -- layout helpers -------------------------------------------------

    def _read_sections(self):
        fmt = self.e + ("IIQQQQIIQQ" if self.is64 else "IIIIIIIIII")
        n = self.shnum
        if n == 0 and self.shoff:
            n = struct.unpack_from(fmt, self.data, self.shoff)[5]
        secs = [Section(i, struct.unpack_from(
            fmt, self.data, self.shoff + i * self.shentsize))
            for i in range(n)]
        strndx = self.shstrndx
        if strndx == 0xFFFF:
            strndx = secs[0].link
        for s in secs:
            s.name = self.cstr(secs[strndx], s.name_off)
        return secs

    def cstr(self, strsec, off):
        start = strsec.offset + off
        end = self.data.index(b"\0", start)
        return self.data[start:end].decode("latin-1")

    def contents(self, sec):
        if sec.type == SHT_NOBITS:
            return b""
        return self.data[sec.offset:sec.offset + sec.size]

    def section(self, name):
        for s in self.sections:
            if s.name == name:
                return s
        return None

    def symtab(self):
        for s in self.sections:
            if s.type == SHT_SYMTAB:
                return s
        return None

    @property
    def symbols(self):
        if self._symbols is None:
            self._symbols = self._read_symbols()
        return self._symbols

    def _read_symbols(self):
        st = self.symtab()
        if st is None:
            return []
        strsec = self.sections[st.link]
        out = []
        if self.is64:
            fmt, size = self.e + "IBBHQQ", 24
        else:
            fmt, size = self.e + "IIIBBH", 16
        for i in range(st.size // size):
            f = struct.unpack_from(fmt, self.data, st.offset + i * size)
            if self.is64:
                name, info, other, shndx, value, sz = f
            else:
                name, value, sz, info, other, shndx = f
            sym = Symbol(i, name, value, sz, info, other, shndx)
            sym.name = self.cstr(strsec, name)
            if sym.type == STT_SECTION and not sym.name and \
                    shndx < len(self.sections):
                sym.name = self.sections[shndx].name
            out.append(sym)
        return out

    def relocs(self, sec):
        rela = sec.type == SHT_RELA
        if self.is64:
            fmt = self.e + ("QQq" if rela else "QQ")
            size = 24 if rela else 16
        else:
            fmt = self.e + ("IIi" if rela else "II")
            size = 12 if rela else 8
        out = []
        for i in range(sec.size // size):
            f = struct.unpack_from(fmt, self.data, sec.offset + i * size)
            if self.is64:
                sym, typ = f[1] >> 32, f[1] & 0xFFFFFFFF
            else:
                sym, typ = f[1] >> 8, f[1] & 0xFF
            out.append(Reloc(f[0], sym, typ, f[2] if rela else None))
        return out

    def reloc_sections_for(self, target):
        return [s for s in self.sections
                if s.type in (SHT_REL, SHT_RELA) and s.info == target.index
                and s.link == (self.symtab().index if self.symtab() else -1)]

    def word(self, buf, off):
        return struct.unpack_from(self.e + ("Q" if self.is64 else "I"),
                                  buf, off)[0]

    def section_at(self, addr):
        """The allocated section of a linked file that holds addr."""
        for s in self.sections:
            if s.flags & SHF_ALLOC and s.addr <= addr < s.addr + s.size:
                return s
        return None


def all_table_entries(elf, name="__mcount_loc"):
    """table_entries() over every section called NAME (an object holds
    one piece per COMDAT group or link-order target), in section
    order; None if there is none."""
    pieces = [s for s in elf.sections if s.name == name]
    if not pieces:
        return None
    return [e for s in pieces for e in table_entries(elf, name, s)]


def table_entries(elf, name="__mcount_loc", table=None):
    """The entries of an object's table, in slot order, as
    (section index, offset, reloc type, slot offset) resolved from the
    relocation's symbol value plus addend (RELA) or the slot (REL).
    TABLE: which section of that name (default: the first)."""
    table = table or elf.section(name)
    if table is None:
        return None
    rels = [s for s in elf.sections
            if s.type in (SHT_REL, SHT_RELA) and s.info == table.index]
    if len(rels) != 1:
        raise ElfError("%d relocation sections for %s" % (len(rels), name))
    body = elf.contents(table)
    out = []
    for r in elf.relocs(rels[0]):
        sym = elf.symbols[r.sym]
        addend = r.addend if r.addend is not None else \
            elf.word(body, r.offset)
        out.append((sym.shndx, (sym.value + addend) & 0xFFFFFFFFFFFFFFFF,
                    r.type, r.offset))
    return out
