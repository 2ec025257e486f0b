#!/usr/bin/env python3
"""Documentation checks for Latchkey (python3, standard library only).

1. Section references. Every "§N" / "§N.N" reference in docs/*.md, README.md and the Swift files under
   Sources/ and Tests/ must name a section that exists in the document it points to:
   - a Markdown link whose text holds the "§" ([§3.4](apple-semantics.md#34-keys-accepted-by-each-call)):
     the linked file and anchor must exist, and the anchor must be that section's heading;
   - otherwise the nearest document named before the "§" in the same paragraph or comment block decides:
     "apple-semantics.md" (the Apple behaviour reference), another "*.md" file of the repository (checked
     against that file's numbered headings), or an external standard (RFC, FIPS, SEC, X9.x, PKCS, …,
     not checked);
   - a "§" with no document before it refers to the Markdown file itself when that file has numbered
     headings, and to docs/apple-semantics.md everywhere else;
   - "spec §…" is reported: it cites the research notes outside the repository.
   Markdown links to "#anchors" of the repository's Markdown files are checked too.
2. Doc comments. Every public or open declaration in Sources/**/*.swift (func, var, let, init,
   subscript, struct, class, actor, enum, protocol, typealias, associatedtype, macro; members of a
   `public extension` and requirements of a public protocol without their own access modifier; `case`s
   of a public enum) must be preceded by a `///` (or `/** */`) doc comment; attribute lines may stand in
   between. Extension headers need none.

Prints one line per violation, "path:line: message", and exits 1 when there is any.
Usage: scripts/check-docs.py [repository root, default: the parent of this script's directory]
"""

import os
import re
import sys

SEMANTICS = "docs/apple-semantics.md"

# ---------------------------------------------------------------------------------------------------
# Markdown headings and anchors


def slug(text):
    """GitHub's anchor for a heading text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading keeps its text
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


class MarkdownFile:
    def __init__(self, path):
        self.path = path
        self.anchors = set()
        self.sections = {}  # "3.4" -> anchor
        counts = {}
        in_fence = False
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if line.lstrip().startswith("```"):
                    in_fence = not in_fence
                    continue
                match = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
                if in_fence or not match:
                    continue
                base = slug(match.group(2))
                anchor = base if base not in counts else f"{base}-{counts[base]}"
                counts[base] = counts.get(base, 0) + 1
                self.anchors.add(anchor)
                number = re.match(r"^(\d+(?:\.\d+)*)\.?\s", match.group(2))
                if number and len(match.group(1)) >= 2:
                    self.sections[number.group(1)] = anchor


class Repository:
    def __init__(self, root):
        self.root = root
        self.markdown = {}

    def rel(self, path):
        return os.path.relpath(path, self.root)

    def markdown_file(self, path):
        path = os.path.normpath(path)
        if path not in self.markdown:
            self.markdown[path] = MarkdownFile(path) if os.path.isfile(path) else None
        return self.markdown[path]

    def find_markdown(self, name, source):
        """Resolves a Markdown file named in `source` (relative to it, the root, or docs/)."""
        for base in (os.path.dirname(source), self.root, os.path.join(self.root, "docs")):
            candidate = os.path.normpath(os.path.join(base, name))
            if os.path.isfile(candidate):
                return candidate
        return None


# ---------------------------------------------------------------------------------------------------
# 1. Section references

EXTERNAL = re.compile(
    r"\b(?:RFC\s*\d+|FIPS|SEC\s*\d|X9\.\d+|ANSI|NIST|SP\s*800|PKCS\s*#?\d+|ITU|ISO|IEEE|ECMA|POSIX)\b"
)
MD_NAME = re.compile(r"[\w./-]*\w\.md\b")
LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")
REFERENCE = re.compile(r"§\s?(\d+(?:\.\d+)*)(?:\s?[–-]\s?(?:§\s?)?(\d+(?:\.\d+)*))?")
STALE = re.compile(r"\bspec\s*§", re.IGNORECASE)


def blocks(path, lines):
    """Groups line numbers into paragraphs (Markdown) or comment blocks (Swift)."""
    if path.endswith(".md"):
        block, in_fence = [], False
        for number, line in enumerate(lines, 1):
            if line.lstrip().startswith("```"):
                in_fence = not in_fence
            if not line.strip() or line.startswith("#"):
                if block:
                    yield block
                block = [number] if line.startswith("#") else []
                if line.startswith("#"):
                    yield block
                    block = []
            else:
                block.append(number)
        if block:
            yield block
    else:
        block = []
        for number, line in enumerate(lines, 1):
            if line.lstrip().startswith("//"):
                block.append(number)
            else:
                if block:
                    yield block
                    block = []
                yield [number]
        if block:
            yield block


def check_references(repo, path, report):
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    semantics = repo.markdown_file(os.path.join(repo.root, SEMANTICS))
    own = repo.markdown_file(path) if path.endswith(".md") else None
    default = path if own and own.sections else os.path.join(repo.root, SEMANTICS)

    def check_number(line, number, target):
        document = repo.markdown_file(target) if target else None
        if document is None:
            return
        if number not in document.sections:
            report(path, line, f"§{number} names no section of {repo.rel(target)}")

    for block in blocks(path, lines):
        events = []  # (line, column, kind, value)
        for line in block:
            text = lines[line - 1]
            if "§" not in text and ".md" not in text and "RFC" not in text:
                continue
            masked = list(text)
            for link in LINK.finditer(text):
                label, target = link.group(1), link.group(2)
                if target.startswith(("http://", "https://", "mailto:")):
                    continue
                file_part, _, anchor = target.partition("#")
                resolved = path if not file_part else repo.find_markdown(file_part, path)
                if file_part and resolved is None:
                    if file_part.endswith(".md"):
                        report(path, line, f"link to a missing file: {file_part}")
                    continue
                if resolved and resolved.endswith(".md"):
                    events.append((line, link.start(), "document", resolved))
                    document = repo.markdown_file(resolved)
                    if anchor and anchor not in document.anchors:
                        report(path, line, f"link to a missing anchor: {target}")
                    numbers = [m.group(1) for m in REFERENCE.finditer(label)]
                    for number in numbers:
                        check_number(line, number, resolved)
                    if numbers and anchor and numbers[0] in document.sections:
                        if document.sections[numbers[0]] != anchor:
                            report(path, line, f"link text §{numbers[0]} but anchor #{anchor}")
                for index in range(link.start(), link.end()):
                    masked[index] = " "
            masked = "".join(masked)
            for match in EXTERNAL.finditer(masked):
                events.append((line, match.start(), "external", None))
            for match in MD_NAME.finditer(masked):
                resolved = repo.find_markdown(match.group(0), path)
                events.append((line, match.start(), "document", resolved))
            for match in STALE.finditer(masked):
                report(path, line, "\"spec §\" cites notes outside the repository; cite docs/apple-semantics.md")
            for match in REFERENCE.finditer(masked):
                events.append((line, match.start(), "reference", match.groups()))
        events.sort(key=lambda event: (event[0], event[1]))
        target = default
        for line, _, kind, value in events:
            if kind == "external":
                target = None
            elif kind == "document":
                target = value
            else:
                for number in value:
                    if number is not None:
                        check_number(line, number, target)
    del semantics


# ---------------------------------------------------------------------------------------------------
# 2. Doc comments on public declarations

MODIFIERS = (
    r"(?:public|open|internal|private|fileprivate|package|final|static|class|override|mutating|nonmutating"
    r"|nonisolated(?:\(unsafe\))?|convenience|required|indirect|lazy|weak|unowned(?:\(\w+\))?|dynamic"
    r"|optional|distributed|consuming|borrowing|(?:private|fileprivate|internal|package|public|open)\(set\))"
)
DECLARATION = re.compile(
    r"^\s*(?P<attrs>(?:@[\w.]+(?:\([^()]*\))?\s*)*)(?P<mods>(?:" + MODIFIERS + r"\s+)*)"
    r"(?P<kw>func|var|let|init[?!]?|subscript|struct|class|actor|enum|protocol|typealias|associatedtype"
    r"|case|extension|macro)(?![\w])"
)
TYPE_KEYWORDS = {"struct", "class", "actor", "enum", "protocol", "extension"}
ACCESS = {"public", "open", "internal", "private", "fileprivate", "package"}


def strip_code(lines):
    """Each line with comments and string literal contents removed (braces in them do not count)."""
    result, in_block, in_multiline = [], 0, None
    for line in lines:
        out, index = [], 0
        while index < len(line):
            if in_block:
                end_comment = line.find("*/", index)
                start_comment = line.find("/*", index)
                if start_comment != -1 and (end_comment == -1 or start_comment < end_comment):
                    in_block += 1
                    index = start_comment + 2
                elif end_comment != -1:
                    in_block -= 1
                    index = end_comment + 2
                else:
                    index = len(line)
                continue
            if in_multiline:
                end = line.find(in_multiline, index)
                if end == -1:
                    index = len(line)
                else:
                    index = end + len(in_multiline)
                    out.append('""')
                    in_multiline = None
                continue
            rest = line[index:]
            if rest.startswith("//"):
                break
            if rest.startswith("/*"):
                in_block = 1
                index += 2
                continue
            raw = re.match(r'(#*)"""', rest)
            if raw:
                in_multiline = '"""' + raw.group(1)
                index += len(raw.group(0))
                continue
            raw = re.match(r'(#*)"', rest)
            if raw:
                closing = '"' + raw.group(1)
                scan = index + len(raw.group(0))
                while scan < len(line):
                    if line[scan] == "\\" and not raw.group(1):
                        scan += 2
                        continue
                    if line.startswith(closing, scan):
                        break
                    scan += 1
                out.append('""')
                index = scan + len(closing)
                continue
            out.append(line[index])
            index += 1
        result.append("".join(out))
    return result


def has_doc_comment(lines, index):
    """Whether the declaration on lines[index] has a doc comment above it (attributes may intervene)."""
    index -= 1
    depth = 0
    while index >= 0:
        text = lines[index].strip()
        if depth > 0 or text.startswith("@") or (text.endswith(")") and text.startswith(")")):
            depth += text.count(")") - text.count("(")
            depth = max(depth, 0)
            index -= 1
            continue
        if text.startswith("///"):
            return True
        if text.endswith("*/"):
            while index >= 0 and "/*" not in lines[index]:
                index -= 1
            return index >= 0 and "/**" in lines[index]
        # A multi-line attribute: "@available(" … ")" spread over lines.
        if text and not text.startswith("//") and re.match(r"^[\w\s\"*.,:()-]*\)$", text):
            depth = text.count(")") - text.count("(")
            if depth > 0:
                index -= 1
                continue
        return False
    return False


def check_doc_comments(repo, path, report):
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    code = strip_code(lines)
    # Scope stack entries: (kind, public) — kind is a type keyword or "code".
    stack = [("file", False)]
    pending = None
    for index, text in enumerate(code):
        scope_kind, scope_public = stack[-1]
        match = DECLARATION.match(text) if scope_kind != "code" else None
        if match:
            keyword = match.group("kw").rstrip("?!")
            modifiers = set(re.findall(r"[a-z]+(?:\([a-z]+\))?", match.group("mods")))
            access = modifiers & ACCESS
            if "public" in access or "open" in access:
                public = True
            elif access:
                public = False
            elif keyword == "case":
                public = scope_kind == "enum" and scope_public
            else:
                public = scope_kind in ("extension", "protocol") and scope_public
            if keyword == "case" and scope_kind != "enum":
                public = False
            if keyword in TYPE_KEYWORDS:
                pending = (keyword, public)
            elif keyword in ("func", "var", "init", "subscript", "macro"):
                pending = ("code", False)
            else:
                pending = None
            if public and keyword != "extension" and not has_doc_comment(lines, index):
                name = text.strip()
                if len(name) > 60:
                    name = name[:57] + "..."
                report(path, index + 1, f"public declaration without a /// doc comment: {name}")
        for character in text:
            if character == "{":
                if pending is not None:
                    stack.append(pending)
                    pending = None
                else:
                    stack.append(("code", False))
            elif character == "}":
                if len(stack) > 1:
                    stack.pop()
                pending = None


# ---------------------------------------------------------------------------------------------------


def swift_files(root, folder):
    for directory, _, names in os.walk(os.path.join(root, folder)):
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(directory, name)


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    repo = Repository(root)
    violations = []

    def report(path, line, message):
        violations.append(f"{repo.rel(path)}:{line}: {message}")

    if repo.markdown_file(os.path.join(root, SEMANTICS)) is None:
        report(os.path.join(root, SEMANTICS), 1, "missing")
    docs = os.path.join(root, "docs")
    markdown = [os.path.join(docs, name) for name in sorted(os.listdir(docs)) if name.endswith(".md")]
    markdown.append(os.path.join(root, "README.md"))
    swift = sorted(swift_files(root, "Sources")) + sorted(swift_files(root, "Tests"))
    for path in markdown + swift:
        if os.path.isfile(path):
            check_references(repo, path, report)
    for path in sorted(swift_files(root, "Sources")):
        check_doc_comments(repo, path, report)

    for violation in violations:
        print(violation)
    if violations:
        print(f"check-docs: {len(violations)} problem(s)", file=sys.stderr)
        return 1
    print("check-docs: section references and doc comments are complete", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
