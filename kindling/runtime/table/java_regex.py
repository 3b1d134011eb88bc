"""Java regular expressions (what Flink's REGEXP functions take) for Python's ``re``, translated
construct by construct so that a pattern matches in Python what it matches in Java: ``\\Q...\\E``
quoting, POSIX and Java classes (``\\p{Alpha}``, ``\\p{javaUpperCase}``), Unicode general categories
(``\\p{Lu}``), class unions and intersections (``[a-z&&[^aeiou]]``), named groups, Java's line
terminators for ``.``, ``^`` and ``$``, inline flags anywhere (``a(?i)b``), ASCII classes and case
folding unless ``(?U)``/``(?u)``. What has no Python equivalent (Unicode blocks and scripts, binary
properties such as ``\\p{IsAlphabetic}``, ``\\G``, ``\\X``) is refused naming the construct.

Example::

    java_pattern(r'\\p{Upper}\\Q.*\\E').search('A.*')   # a match
"""
from __future__ import annotations

import functools
import re
import sys
import unicodedata
from typing import Dict, List, Optional, Tuple

__all__ = ["UntranslatableRegex", "capturing_groups", "java_pattern", "python_regex"]

_TERMINATORS = "\n\r\x85\u2028\u2029"
_POSIX = {"Lower": "a-z", "Upper": "A-Z", "ASCII": "\\x00-\\x7f", "Alpha": "a-zA-Z", "Digit": "0-9",
          "Alnum": "a-zA-Z0-9", "Punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
          "Graph": "!-~", "Print": " -~", "Blank": " \\t", "Cntrl": "\\x00-\\x1f\\x7f", "XDigit": "0-9a-fA-F",
          "Space": " \\t\\n\\x0b\\f\\r"}
_SHORTHANDS = {"d": "0-9", "w": "a-zA-Z0-9_", "s": " \\t\\n\\x0b\\f\\r",
               "h": " \\t\\xa0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000",
               "v": "\\n\\x0b\\f\\r\\x85\\u2028\\u2029"}
_CATEGORIES = {"L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No", "P", "Pc", "Pd",
               "Ps", "Pe", "Pi", "Pf", "Po", "S", "Sm", "Sc", "Sk", "So", "Z", "Zs", "Zl", "Zp", "C", "Cc", "Cf",
               "Co", "Cs", "Cn"}
#: java.lang.Character's classes and the binary properties Python's unicodedata can decide
_CHARACTER = {"javaLowerCase": str.islower, "javaUpperCase": str.isupper, "javaTitleCase": str.istitle,
              "javaDigit": lambda c: unicodedata.category(c) == "Nd",
              "javaLetter": lambda c: unicodedata.category(c).startswith("L"),
              "javaLetterOrDigit": lambda c: unicodedata.category(c)[0] == "L" or unicodedata.category(c) == "Nd",
              "javaSpaceChar": lambda c: unicodedata.category(c) in ("Zs", "Zl", "Zp"),
              "javaWhitespace": lambda c: (unicodedata.category(c) in ("Zs", "Zl", "Zp") and
                                           c not in "\xa0\u2007\u202f") or c in "\t\n\x0b\f\r\x1c\x1d\x1e\x1f",
              "javaMirrored": lambda c: bool(unicodedata.mirrored(c)),
              "javaDefined": lambda c: unicodedata.category(c) != "Cn",
              "javaISOControl": lambda c: c <= "\x1f" or "\x7f" <= c <= "\x9f",
              "IsLetter": lambda c: unicodedata.category(c).startswith("L"), "IsLowercase": str.islower,
              "IsUppercase": str.isupper, "IsTitlecase": lambda c: unicodedata.category(c) == "Lt",
              "IsPunctuation": lambda c: unicodedata.category(c).startswith("P"),
              "IsControl": lambda c: unicodedata.category(c) == "Cc",
              "IsDigit": lambda c: unicodedata.category(c) == "Nd",
              "IsAssigned": lambda c: unicodedata.category(c) != "Cn"}


class UntranslatableRegex(ValueError):
    """A Java regular expression construct Python's ``re`` has no equivalent of."""


@functools.lru_cache(maxsize=512)
def java_pattern(pattern: str) -> "re.Pattern":
    """The compiled Python regex matching what the Java regex ``pattern`` matches; ValueError when it
    is not a valid or translatable pattern."""
    regex, flags = python_regex(pattern)
    try:
        return re.compile(regex, flags)
    except re.error as error:
        raise ValueError(f"The regular expression {pattern!r} is not valid: {error}") from None


def python_regex(pattern: str) -> Tuple[str, int]:
    """The Python regex and ``re`` flags of a Java regex: ``re.ASCII`` (Java's classes and case folding are
    ASCII) unless the pattern asks for Unicode case (``u``; its ``\\w``, ``\\d``, ``\\s``, ``\\b`` stay ASCII)
    or Unicode classes (``U``)."""
    flags = _global_flags(pattern)
    unicode_case = "u" in flags or "U" in flags
    translated = _Translator(pattern, ascii_shorthands="u" in flags and "U" not in flags).translate()
    return translated, 0 if unicode_case else re.ASCII


def capturing_groups(pattern: str) -> int:
    """How many capturing groups the Java regex ``pattern`` has (plain and named ones)."""
    count, at, depth = 0, 0, 0  # depth: of character classes
    while at < len(pattern):
        if pattern.startswith("\\Q", at):
            end = pattern.find("\\E", at + 2)
            at = len(pattern) if end < 0 else end + 2
            continue
        c = pattern[at]
        if c == "\\":
            at += 2
            continue
        if c == "[":
            depth += 1
        elif c == "]" and depth:
            depth -= 1
        elif c == "(" and not depth and (not pattern.startswith("(?", at) or
                                         re.match(r"\(\?<[a-zA-Z]", pattern[at:])):
            count += 1
        at += 1
    return count


def _global_flags(pattern: str) -> str:
    """Every flag letter turned on by an inline flag group anywhere in the pattern."""
    return "".join(m.group(1) for m in re.finditer(r"\(\?([a-zA-Z]*)(?:-[a-zA-Z]*)?[:)]", pattern))


class _Translator:
    """One pass over a Java pattern, keeping Java's flags (i, d, m, s, u, x, U) per group."""

    def __init__(self, pattern: str, ascii_shorthands: bool):
        self.text, self.at, self.ascii_shorthands = pattern, 0, ascii_shorthands
        self.flags: List[Dict[str, bool]] = [dict.fromkeys("idmsuxU", False)]
        self.closers: List[str] = []  # per open group: what closes it (')' plus scoped flag groups)
        self.trailing = ""  # what closes the scoped flag groups of flags set outside any group

    def translate(self) -> str:
        out: List[str] = []
        while self.at < len(self.text):
            out.append(self._next())
        return "".join(out) + self.trailing

    # -- outside classes ------------------------------------------------------------------------

    def _next(self) -> str:
        c = self.text[self.at]
        flags = self.flags[-1]
        if flags["x"] and c in " \t\n\x0b\f\r":
            self.at += 1
            return ""
        if flags["x"] and c == "#":
            end = self.text.find("\n", self.at)
            self.at = len(self.text) if end < 0 else end + 1
            return ""
        if c == "\\":
            return self._escape()
        if c == "[":
            return self._class()
        if c == "(":
            return self._group()
        if c == ")":
            if not self.closers:
                raise ValueError(f"The regular expression {self.text!r} has an unmatched ')'")
            self.at += 1
            self.flags.pop()
            return self.closers.pop()
        self.at += 1
        if c == ".":
            return "(?s:.)" if flags["s"] else "[^\\n]" if flags["d"] else f"[^{_escaped(_TERMINATORS)}]"
        if c == "^":
            if not flags["m"]:
                return "\\A"
            before = "\\n" if flags["d"] else "\\n\\x85\\u2028\\u2029"
            return "(?:\\A|(?<=[" + before + "])(?!\\Z)" + ("" if flags["d"] else "|(?<=\\r)(?!\\n|\\Z)") + ")"
        if c == "$":
            line = "\\n" if flags["d"] else "\\r\\n|[" + _escaped(_TERMINATORS) + "]"
            return f"(?=(?:{line})|\\Z)" if flags["m"] else f"(?=(?:{line})?\\Z)"
        return c

    def _group(self) -> str:
        rest = self.text[self.at:]
        flag_group = re.match(r"\(\?([idmsuxU]*)(?:-([idmsuxU]*))?([:)])", rest)
        if flag_group and (flag_group.group(1) or flag_group.group(2) is not None):
            on, off, end = flag_group.group(1), flag_group.group(2) or "", flag_group.group(3)
            self.at += flag_group.end()
            state = dict(self.flags[-1], **dict.fromkeys(on, True), **dict.fromkeys(off, False))
            case = _case_flag(on, off)
            if end == ":":  # a scoped group
                self.flags.append(state)
                self.closers.append(")")
                return f"(?{case}:" if case else "(?:"
            # flags for the rest of the enclosing group: a scoped Python group closed with it
            self.flags[-1] = state
            if not case:
                return ""
            if self.closers:
                self.closers[-1] = ")" + self.closers[-1]
            else:
                self.trailing += ")"
            return f"(?{case}:"
        self.flags.append(dict(self.flags[-1]))
        self.closers.append(")")
        named = re.match(r"\(\?<([a-zA-Z][a-zA-Z0-9]*)>", rest)
        if named:
            self.at += named.end()
            return f"(?P<{named.group(1)}>"
        for java in ("(?:", "(?=", "(?!", "(?<=", "(?<!", "(?>"):
            if rest.startswith(java):
                self.at += len(java)
                return java
        if rest.startswith("(?"):
            raise UntranslatableRegex(f"The group {rest[:4]!r}... of {self.text!r} has no Python equivalent")
        self.at += 1
        return "("

    def _escape(self) -> str:
        text, at = self.text, self.at
        if at + 1 >= len(text):
            raise ValueError(f"The regular expression {text!r} ends with a lone backslash")
        c = text[at + 1]
        self.at += 2
        if c == "Q":
            end = text.find("\\E", self.at)
            quoted = text[self.at:] if end < 0 else text[self.at:end]
            self.at = len(text) if end < 0 else end + 2
            return re.escape(quoted)
        if c in "pP":
            ranges = self._property()
            return f"[{'^' if c == 'P' else ''}{ranges}]"
        if c in "hHvV" or (c in "dwsDWS" and self.ascii_shorthands):
            return f"[{'^' if c.isupper() else ''}{_SHORTHANDS[c.lower()]}]"
        if c in "bB" and self.ascii_shorthands:
            word = "[a-zA-Z0-9_]"
            boundary = f"(?:(?<={word})(?!{word})|(?<!{word})(?={word}))"
            return boundary if c == "b" else f"(?!{boundary})"
        if c == "R":
            return "(?:\\r\\n|[\\n\\x0b\\f\\r\\x85\\u2028\\u2029])"
        if c == "z":
            return "\\Z"
        if c == "Z":
            return f"(?=(?:\\r\\n|[{_escaped(_TERMINATORS)}])?\\Z)"
        if c == "k":
            named = re.match(r"<([a-zA-Z][a-zA-Z0-9]*)>", text[self.at:])
            if not named:
                raise ValueError(f"The regular expression {text!r} has \\k without <name>")
            self.at += named.end()
            return f"(?P={named.group(1)})"
        if c in "GX":
            raise UntranslatableRegex(f"\\{c} in the regular expression {text!r} has no Python equivalent")
        return self._character_escape(c)

    def _character_escape(self, c: str) -> str:
        """An escape of one character (outside and inside classes), as a Python escape."""
        if c == "e":
            return "\\x1b"
        if c == "c":
            control = self.text[self.at]
            self.at += 1
            return _escaped(chr(ord(control) ^ 64))
        if c == "0":
            digits = re.match(r"[0-3]?[0-7]{1,2}", self.text[self.at:]).group(0) if \
                re.match(r"[0-7]", self.text[self.at:]) else ""
            if not digits:
                raise ValueError(f"The regular expression {self.text!r} has an illegal octal escape \\0")
            self.at += len(digits)
            return _escaped(chr(int(digits, 8)))
        if c == "x" and self.text.startswith("{", self.at):
            end = self.text.index("}", self.at)
            code = int(self.text[self.at + 1:end], 16)
            self.at = end + 1
            return _escaped(chr(code))
        if c in "xu":
            digits = self.text[self.at:self.at + (2 if c == "x" else 4)]
            if not re.fullmatch(r"[0-9a-fA-F]{%d}" % (2 if c == "x" else 4), digits):
                raise ValueError(f"The regular expression {self.text!r} has an illegal escape \\{c}{digits}")
            self.at += len(digits)
            return _escaped(chr(int(digits, 16)))
        return "\\" + c

    def _property(self) -> str:
        """The class ranges of a ``\\p`` property (after ``\\p``)."""
        text = self.text
        if text.startswith("{", self.at):
            end = text.index("}", self.at)
            name = text[self.at + 1:end]
            self.at = end + 1
        else:
            name = text[self.at]
            self.at += 1
        return property_ranges(name)

    # -- classes -----------------------------------------------------------------------------

    def _class(self) -> str:
        """A Java character class (at ``[``) as one Python construct matching one character."""
        self.at += 1
        negated = self.text.startswith("^", self.at)
        if negated:
            self.at += 1
        operands: List[List[str]] = [[]]  # intersection operands, each a union of Python class pieces
        first = True
        while True:
            if self.at >= len(self.text):
                raise ValueError(f"The regular expression {self.text!r} has an unclosed character class")
            c = self.text[self.at]
            if c == "]" and not first:
                self.at += 1
                break
            first = False
            if self.text.startswith("&&", self.at):
                self.at += 2
                operands.append([])
            elif c == "[":
                nested = self._class()
                if negated:
                    raise UntranslatableRegex(f"The negated class with a nested class in {self.text!r} has no "
                                              "Python equivalent (write the class without nesting)")
                operands[-1].append(nested)
            else:
                operands[-1].append(self._class_item())
        if negated and len(operands) > 1:
            raise UntranslatableRegex(f"The negated class intersection in {self.text!r} has no Python equivalent")
        singles = [_union(pieces) for pieces in operands if pieces]
        if negated:
            if not all(_simple(s) for s in singles):
                raise UntranslatableRegex(f"The negated class of negated parts in {self.text!r} has no Python "
                                          "equivalent")
            return f"[^{''.join(s[1:-1] for s in singles)}]" if singles else "[\\s\\S]"
        if len(singles) == 1:
            return singles[0]
        return "(?:" + "".join(f"(?={s})" for s in singles[1:]) + singles[0] + ")"

    def _class_item(self) -> str:
        """One item of a class (a character, a range, an escape, a property) as a Python class ``[...]``."""
        low = self._class_character()
        if low.startswith("["):
            return low
        if self.text.startswith("-", self.at) and not self.text.startswith("-]", self.at) and \
                not self.text.startswith("-[", self.at):
            self.at += 1
            high = self._class_character()
            if high.startswith("["):
                raise ValueError(f"The regular expression {self.text!r} has an illegal range in a class")
            return f"[{low}-{high}]"
        return f"[{low}]"

    def _class_character(self) -> str:
        """One character of a class, escaped for a Python class, or a whole class ``[...]``."""
        c = self.text[self.at]
        if c != "\\":
            self.at += 1
            return _escaped(c)
        e = self.text[self.at + 1]
        self.at += 2
        if e == "Q":
            end = self.text.find("\\E", self.at)
            quoted = self.text[self.at:] if end < 0 else self.text[self.at:end]
            self.at = len(self.text) if end < 0 else end + 2
            return "[" + "".join(_escaped(q) for q in quoted) + "]" if quoted else "[]"
        if e in "pP":
            ranges = self._property()
            return f"[{'^' if e == 'P' else ''}{ranges}]"
        if e in "hHvV" or (e in "dwsDWS" and self.ascii_shorthands):
            return f"[{'^' if e.isupper() else ''}{_SHORTHANDS[e.lower()]}]"
        if e in "dwsDWS":
            return f"[^\\{e.lower()}]" if e.isupper() else f"[\\{e}]"
        if e in "ntrfa":
            return "\\" + e
        return self._character_escape(e) if e in "ecxu0" else _escaped(e)


def _simple(piece: str) -> bool:
    """Whether a class piece is a plain positive Python class ``[...]``."""
    return piece.startswith("[") and not piece.startswith("[^")


def _union(pieces: List[str]) -> str:
    """One Python construct for the union of class pieces (classes ``[...]``, negated ones, groups)."""
    simple = "".join(p[1:-1] for p in pieces if _simple(p))
    alternatives = ([f"[{simple}]"] if simple else []) + [p for p in pieces if not _simple(p)]
    if not alternatives:
        return "(?!)"
    return alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"


def _case_flag(on: str, off: str) -> str:
    return ("i" if "i" in on else "") + ("-i" if "i" in off else "")


def _escaped(text: str) -> str:
    """Characters escaped for a Python regex, inside or outside a class."""
    return "".join(f"\\x{ord(c):02x}" if ord(c) < 0x100 and not c.isalnum() else
                   f"\\u{ord(c):04x}" if 0x100 <= ord(c) <= 0xffff and not c.isalnum() else
                   f"\\U{ord(c):08x}" if ord(c) > 0xffff and not c.isalnum() else c for c in text)


@functools.lru_cache(maxsize=None)
def property_ranges(name: str) -> str:
    """The Python class ranges (without brackets) of a Java ``\\p{name}`` property."""
    if name in _POSIX:
        return _POSIX[name]
    key = name
    for prefix in ("general_category=", "gc=", "Is"):
        if key.startswith(prefix) and (key[len(prefix):] in _CATEGORIES or prefix != "Is"):
            key = key[len(prefix):]
    if key in _CATEGORIES:
        return _ranges(lambda c: unicodedata.category(c).startswith(key) if len(key) == 1 else
                       unicodedata.category(c) == key)
    if name in _CHARACTER:
        return _ranges(_CHARACTER[name])
    raise UntranslatableRegex(f"\\p{{{name}}} has no Python equivalent in Kindling (POSIX classes, java.lang."
                              "Character classes and Unicode general categories translate; Unicode blocks, "
                              "scripts and properties such as Alphabetic do not)")


def _ranges(member) -> str:
    """The code point ranges of the characters ``member`` accepts, as Python class ranges."""
    out, start, previous = [], None, None
    for code in range(sys.maxunicode + 1):
        if 0xd800 <= code <= 0xdfff:
            inside = False
        else:
            inside = member(chr(code))
        if inside and start is None:
            start = code
        elif not inside and start is not None:
            out.append((start, previous))
            start = None
        previous = code
    if start is not None:
        out.append((start, previous))
    return "".join(_escaped(chr(a)) if a == b else f"{_escaped(chr(a))}-{_escaped(chr(b))}" for a, b in out)
