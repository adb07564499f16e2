#!/usr/bin/env python3
"""Writes the Markdown reference of tenport's public API from include/tenport/*.h.

    python3 tools/apidoc/apidoc.py --output include/API.md   # (re)generate
    python3 tools/apidoc/apidoc.py --check include/API.md    # exit 1 if it is stale

The headers document themselves with plain C comments, and this script reads exactly
that convention:
  - a comment at the top of the file describes the header; its first sentence is the
    header's summary in the table of contents;
  - a comment directly above a declaration, or above a run of declarations with no
    blank line between them, documents that run as a whole;
  - struct fields and enumerators carry trailing comments, kept in the code shown;
  - a comment whose first line reads "---- title ----" opens a section.
Declarations are shown as written (the bodies of inline functions left out), each
followed by its comment as Markdown prose. Anything the parser does not recognise is
still shown as written, and reported on stderr, so nothing leaves the reference
silently. Standard library only.
"""

import argparse
import difflib
import os
import re
import string
import sys
import textwrap
import unicodedata

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADER_DIR = os.path.join(REPO_ROOT, 'include', 'tenport')
UMBRELLA = 'tenport.h'  # listed first; the others follow in the order it includes them
SELF = 'tools/apidoc/apidoc.py'

IDENT = r'[A-Za-z_]\w*'
C_KEYWORDS = frozenset('''
    auto break case char const continue default do double else enum extern float for goto
    if inline int long register restrict return short signed sizeof static struct switch
    typedef union unsigned void volatile while _Alignas _Alignof _Atomic _Bool _Complex
    _Generic _Noreturn _Static_assert _Thread_local'''.split())
# Annotations whose parenthesised arguments would otherwise look like parameter lists.
ATTRIBUTE_WORDS = ('__attribute__', '__declspec', '_Alignas')
# Directives that are understood but declare nothing: shown as written, no warning.
PLAIN_DIRECTIVES = frozenset(['if', 'ifdef', 'ifndef', 'elif', 'else', 'endif', 'undef',
                              'pragma', 'error', 'warning', 'line'])


def warn(message):
    print('apidoc: ' + message, file=sys.stderr)


# ---- lexical scanning ------------------------------------------------------------------

def skip_comment(src, i):
    """Index just past the comment ('/*' or '//') that starts at src[i]."""
    if src.startswith('//', i):
        end = src.find('\n', i)
        return len(src) if end < 0 else end
    end = src.find('*/', i + 2)
    return len(src) if end < 0 else end + 2


def skip_literal(src, i):
    """Index just past the string or character literal that starts at src[i]."""
    quote, i = src[i], i + 1
    while i < len(src):
        if src[i] == '\\':
            i += 2
        elif src[i] == quote:
            return i + 1
        elif src[i] == '\n':  # unterminated: stop at the end of the line
            return i
        else:
            i += 1
    return len(src)


def skip_noise(src, i):
    """If a comment or a literal starts at src[i], the index just past it, else None."""
    if src.startswith('/*', i) or src.startswith('//', i):
        return skip_comment(src, i)
    if src[i] in '"\'':
        return skip_literal(src, i)
    return None


def at_line_start(src, i):
    return src[src.rfind('\n', 0, i) + 1:i].strip() == ''


def skip_directive(src, i):
    """Index of the newline ending the directive at src[i] (continuations included)."""
    while i < len(src) and src[i] != '\n':
        if src.startswith('\\\n', i):
            i += 2
            continue
        after = skip_noise(src, i)  # a comment may carry the directive over lines
        i = after if after is not None else i + 1
    return i


def skip_block(src, i):
    """Index just past the '}' matching the '{' at src[i] (len(src) if unmatched)."""
    depth = 0
    while i < len(src):
        after = skip_noise(src, i)
        if after is not None:
            i = after
            continue
        if src[i] == '{':
            depth += 1
        elif src[i] == '}':
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(src)


def code_only(text):
    """text with every comment replaced by a space (literals are kept)."""
    out, i = [], 0
    while i < len(text):
        after = skip_noise(text, i)
        if after is None:
            out.append(text[i])
            i += 1
        else:
            out.append(' ' if text[i] == '/' else text[i:after])
            i = after
    return ''.join(out)


def flatten(text):
    """Code of text on one line: comments dropped, runs of white space made one blank."""
    return ' '.join(code_only(text.replace('\\\n', ' ')).split())


def scan_statement(src, i):
    """Scans the statement at src[i]: returns (kind, end, body_start, complete).

    kind is 'code' (a declaration, ending after its ';'), 'function' (a definition,
    whose body starts at body_start), or 'extern_open' / 'extern_close' for the
    braces of an extern "C" block. complete is False when the file ended first."""
    start, depth = i, 0
    while i < len(src):
        after = skip_noise(src, i)
        if after is not None:
            i = after
            continue
        c = src[i]
        if c == '#' and at_line_start(src, i):  # conditional inside a declaration
            i = skip_directive(src, i)
            continue
        if c in '([':
            depth += 1
        elif c in ')]':
            depth -= 1
        elif c == '{':
            if depth == 0:
                head = flatten(src[start:i])
                if re.fullmatch(r'extern\s*"C"', head):
                    return 'extern_open', i + 1, None, True
                if head.endswith(')'):  # a parameter list, then a body
                    end = skip_block(src, i)
                    return 'function', end, i, src[end - 1:end] == '}'
            depth += 1
        elif c == '}':
            if depth == 0:
                if not flatten(src[start:i]):
                    return 'extern_close', i + 1, None, True
                return 'code', i, None, False  # unbalanced: leave the brace to the next
            depth -= 1
        elif c == ';' and depth == 0:
            return 'code', i + 1, None, True
        i += 1
    return 'code', i, None, False


class Chunk:
    """A top-level piece of a header: a comment, a directive or a statement."""

    def __init__(self, kind, text, line, blank_before):
        self.kind = kind            # 'comment', 'directive', 'code', 'function', 'extern_*'
        self.text = text            # as written, from the start of its first line
        self.line = line            # 1-based
        self.blank_before = blank_before  # a blank line (or the file start) precedes it
        self.complete = True        # False when the file ended inside it
        self.signature = ''         # 'function': the text before the body
        self.trailing = ''          # 'function': a comment after the body on its line


def split_chunks(src):
    """Splits a header into Chunks, in order. A comment on the line where a declaration
    ends stays with that declaration; consecutive // lines make one comment."""
    chunks = []
    i, line, newlines, prev_end = 0, 1, 2, 0
    while i < len(src):
        c = src[i]
        if c.isspace():
            if c == '\n':
                newlines += 1
                line += 1
            i += 1
            continue
        prev = chunks[-1] if chunks else None
        begin = src.rfind('\n', 0, i) + 1 if at_line_start(src, i) else i
        if src.startswith('/*', i) or src.startswith('//', i):
            end = skip_comment(src, i)
            if prev and newlines == 0 and prev.kind == 'code':
                prev.text += src[prev_end:end]  # trailing comment of a declaration
            elif prev and newlines == 0 and prev.kind == 'function':
                prev.trailing += src[prev_end:end]
            elif (prev and newlines == 1 and prev.kind == 'comment'
                  and prev.text.lstrip().startswith('//') and src.startswith('//', i)):
                prev.text += src[prev_end:end]
            else:
                chunks.append(Chunk('comment', src[begin:end], line, newlines >= 2))
        elif c == '#' and at_line_start(src, i):
            end = skip_directive(src, i)
            chunks.append(Chunk('directive', src[begin:end], line, newlines >= 2))
        else:
            kind, end, body, complete = scan_statement(src, i)
            chunk = Chunk(kind, src[begin:end], line, newlines >= 2)
            chunk.complete = complete
            if kind == 'function':
                chunk.signature = src[begin:body].rstrip()
            chunks.append(chunk)
        line += src.count('\n', i, end)
        newlines = 0
        i = prev_end = end
    return chunks


# ---- preprocessor: include guard, #include, extern "C" ---------------------------------

def directive_parts(text):
    """('define', 'NAME value') for a directive such as '#  define NAME value'."""
    m = re.match(r'#\s*(\w*)\s*(.*)$', flatten(text))
    return (m.group(1), m.group(2)) if m else ('', '')


def guard_indices(chunks, directives):
    """Indices of '#ifndef X' and '#define X' if they open the header, else None."""
    if len(directives) < 2:
        return None
    (name1, arg1), (name2, arg2) = (directive_parts(chunks[k].text) for k in directives[:2])
    m = re.fullmatch(r'(?:ifndef\s+|if\s+!\s*defined\s*\(?\s*)(\w+)\s*\)?', name1 + ' ' + arg1)
    if m and name2 == 'define' and arg2 == m.group(1):
        return directives[0], directives[1]
    return None


def strip_preprocessor(chunks):
    """Drops the include guard, #include lines and the extern "C" wrapper.

    Returns (chunks kept, includes). A __cplusplus conditional holding anything but the
    extern "C" braces is kept, to be shown as written."""
    directives = [k for k, ch in enumerate(chunks) if ch.kind == 'directive']
    guard = guard_indices(chunks, directives)
    drop, includes, stack = set(), [], []
    for k in directives:
        name, arg = directive_parts(chunks[k].text)
        if name in ('if', 'ifdef', 'ifndef'):
            stack.append(k)
        elif name == 'endif' and stack:
            opened = stack.pop()
            inner = chunks[opened + 1:k]
            if guard and opened == guard[0]:
                drop.update((opened, guard[1], k))
            elif ('__cplusplus' in chunks[opened].text
                  and all(ch.kind in ('extern_open', 'extern_close') for ch in inner)):
                drop.update(range(opened, k + 1))
        elif name == 'include':
            includes.append(arg)
            drop.add(k)
        elif name == 'pragma' and arg == 'once':
            drop.add(k)
    kept = []
    for k, ch in enumerate(chunks):
        if k in drop:
            continue
        # What was dropped separated its neighbours as a blank line would.
        ch.blank_before = ch.blank_before or k - 1 in drop
        kept.append(ch)
    return kept, includes


# ---- declarations ---------------------------------------------------------------------

class Decl:
    """One declaration: its kind, the names it declares and the code to show."""

    def __init__(self, kind, names, code):
        self.kind = kind
        self.names = names
        self.code = code


def strip_attributes(flat):
    """Removes __attribute__((...)) and similar annotations from flattened code."""
    for word in ATTRIBUTE_WORDS:
        for m in reversed(list(re.finditer(r'\b%s\s*\(' % word, flat))):
            close = matching_paren(flat, m.end() - 1)
            if close is not None:
                flat = flat[:m.start()] + flat[close + 1:]
    return ' '.join(flat.split())


def matching_paren(text, i):
    """Index of the ')' matching the '(' at text[i], or None."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == '(':
            depth += 1
        elif text[j] == ')':
            depth -= 1
            if depth == 0:
                return j
    return None


def declarator_names(text):
    """Names declared by 'a, *b, c[4]' (the part after a type), or None."""
    names = []
    for part in text.split(','):
        part = re.sub(r'\[[^\]]*\]|=.*', '', part)
        idents = re.findall(IDENT, part)
        if not idents or idents[-1] in C_KEYWORDS:
            return None
        names.append(idents[-1])
    return names


def function_name(flat):
    """Name of the function a prototype 'type name(params)' declares, or None."""
    p = flat.find('(')
    close = matching_paren(flat, p) if p > 0 else None
    if close is None or flat[close + 1:].strip():
        return None
    head = flat[:p].rstrip()
    m = re.search(IDENT + '$', head)
    if not m:
        return None
    return_type = head[:m.start()].strip()
    if m.group(0) in C_KEYWORDS or not re.search(r'\w', return_type):
        return None
    return m.group(0)


def classify(flat):
    """(kind, names) of a declaration flattened without its ';', or None."""
    m = re.fullmatch(r'typedef\s+(struct|union|enum)\b[^{]*\{.*\}\s*([^{}]+)', flat)
    if m:
        names = declarator_names(m.group(2))
        return (m.group(1), names) if names else None
    m = re.fullmatch(r'typedef\b[^(]*\(\s*(?:\w+\s+)?\*\s*(%s)\s*\)\s*\(.*\)' % IDENT, flat)
    if m:
        return 'function pointer type', [m.group(1)]
    m = re.fullmatch(r'typedef\s+(struct|union)\s+%s\s+(%s)' % (IDENT, IDENT), flat)
    if m:
        return 'opaque type', [m.group(2)]
    if flat.startswith('typedef '):
        m = re.fullmatch(r'typedef\b[^(]*\(\s*(%s)\s*\)\s*\(.*\)' % IDENT, flat)
        name = m.group(1) if m else function_name(flat[len('typedef '):])
        if name:
            return 'function type', [name]
        names = declarator_names(flat[len('typedef '):])
        return ('type', names) if names and len(re.findall(IDENT, flat)) >= 3 else None
    m = re.fullmatch(r'(struct|union|enum)\s+(%s)\s*(\{.*\})?' % IDENT, flat)
    if m:
        return (m.group(1) if m.group(3) else 'forward declaration'), [m.group(2)]
    name = function_name(flat)
    if name:
        return 'function', [name]
    m = re.match(r'[^(]*\(\s*\*\s*(%s)\s*\)\s*\(' % IDENT, flat)  # pointer to function
    if m:
        return 'variable', [m.group(1)]
    if '(' not in flat and len(re.findall(IDENT, flat.split('=')[0])) >= 2:
        names = declarator_names(flat)
        return ('variable', names) if names else None
    return None


def describe(chunk):
    """The Decl of a chunk; kind 'unparsed' when it is not understood."""
    code = textwrap.dedent(chunk.text)
    if chunk.kind == 'directive':
        name, arg = directive_parts(chunk.text)
        m = re.match(IDENT, arg)
        if name == 'define' and m:
            return Decl('macro', [m.group(0)], code)
        if name in PLAIN_DIRECTIVES:
            return Decl('directive', [], code)
    elif chunk.kind == 'function' and chunk.complete:
        found = classify(strip_attributes(flatten(chunk.signature)))
        if found and found[0] == 'function':
            # The signature only: the body is an implementation detail.
            shown = textwrap.dedent(chunk.signature) + ';' + chunk.trailing
            return Decl('inline function', found[1], shown)
    elif chunk.kind == 'code' and chunk.complete:
        flat = strip_attributes(flatten(chunk.text))
        found = classify(flat[:-1].rstrip()) if flat.endswith(';') else None
        if found:
            return Decl(found[0], found[1], code)
    return Decl('unparsed', [], code)


# ---- comments ---------------------------------------------------------------------------

def comment_lines(text):
    """The text of a comment, one string per line, without its markers and leaders."""
    text = text.strip()
    if text.startswith('//'):
        lines = [re.sub(r'^\s*//+ ?', '', line) for line in text.split('\n')]
    else:
        body = text[2:-2] if text.endswith('*/') and len(text) >= 4 else text[2:]
        raw = body.split('\n')
        lines = [re.sub(r'^\*+ ?', '', raw[0]).rstrip()]
        unled = []  # continuation lines written without a leading '*'
        for line in raw[1:]:
            m = re.match(r'\s*\*(?!/) ?', line)
            if m:
                lines.append(line[m.end():].rstrip())
            else:
                unled.append(len(lines))
                lines.append(line.rstrip())
        indent = min((len(lines[k]) - len(lines[k].lstrip()) for k in unled if lines[k]),
                     default=0)
        for k in unled:
            lines[k] = lines[k][indent:]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def banner_title(lines):
    """The title of a '---- title ----' first line, or None."""
    if not lines:
        return None
    m = re.fullmatch(r'\s*[-=]{2,}\s+(\S.*?)\s+[-=]{2,}\s*', lines[0])
    return m.group(1) if m else None


# ---- Markdown ---------------------------------------------------------------------------

# Runs of prose shown as code: existing `code`, string literals, file names, tenport
# names (with a field, call arguments or a wildcard), identifiers with subscripts
# (U_m[i_m, r], prod_{k<=s}), field accesses (opts->rank) and dereferences (*out).
CODE_TOKEN = re.compile(r'''
    `[^`\n]+`
  | "[^"`\n]*"
  | (?<![\w.])[\w/-]*(?:\.[\w-]+|<\w+>)*\.(?:h|c|npy|tns|tpb|tci)\b(?![\w(])
  | \b(?:tp|TP|TENPORT)_\w*(?:\.\w+)*(?:\*|\([^()\n]*\))?
  | \b[A-Za-z0-9]\w*_(?:\{[^{}\n]*\}|\([\w+-]*\)|\w*)(?:\[[^\[\]\n]*\])*
  | \b\w+(?:->\w+)+
  | (?<![\w*)\]])\*[A-Za-z_]\w*(?:->\w+)*(?![\w*])
''', re.X)


def is_punct(c):
    return c in string.punctuation or unicodedata.category(c)[0] in 'PS'


def can_open_emphasis(c, prev, nxt):
    """Whether a run of c ('*', '_' or '~') between prev and nxt could open emphasis
    (CommonMark's left-flanking rule). Escaping every such run leaves emphasis
    nothing to start from, while harmless ones (x * y, lambda_r) stay readable."""
    if nxt.isspace():
        return False
    left = not is_punct(nxt) or prev.isspace() or is_punct(prev)
    if c != '_':
        return left
    right = not prev.isspace() and (not is_punct(prev) or nxt.isspace() or is_punct(nxt))
    return left and (not right or is_punct(prev))


def escape_plain(text, before, after):
    """Escapes what Markdown would read as markup in prose; before and after are the
    characters around text on its line."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c in '*_~':
            j = i
            while j < len(text) and text[j] == c:
                j += 1
            prev = text[i - 1] if i else before
            nxt = text[j] if j < len(text) else after
            run = text[i:j]
            out.append(run.replace(c, '\\' + c) if can_open_emphasis(c, prev, nxt) else run)
            i = j
            continue
        if c in '\\`$' or (c == '<' and re.match(r'[A-Za-z/!?]', text[i + 1:i + 2])) \
                or (c == '&' and re.match(r'#?\w+;', text[i + 1:])) \
                or (c == ']' and text[i + 1:i + 2] == '('):
            out.append('\\' + c)
        else:
            out.append(c)
        i += 1
    return ''.join(out)


def inline_md(text):
    """One line of prose as Markdown: code-like runs in backticks, the rest escaped."""
    pieces, pos = [], 0
    for m in CODE_TOKEN.finditer(text):
        pieces.append((False, text[pos:m.start()]))
        token = m.group(0)
        pieces.append((True, token if token.startswith('`') else '`%s`' % token))
        pos = m.end()
    pieces.append((False, text[pos:]))
    out = []
    for k, (is_code, piece) in enumerate(pieces):
        if is_code:
            out.append(piece)
            continue
        before = pieces[k - 1][1][-1:] if k else ' '
        after = pieces[k + 1][1][:1] if k + 1 < len(pieces) else ' '
        out.append(escape_plain(piece, before or ' ', after or ' '))
    return ''.join(out)


def escape_line_start(line):
    """Escapes a line start that Markdown would read as a block (heading, list...)."""
    if re.match(r'[#>]|[-+*](\s|$)|~{3}|([-*_=])(\s*\2)*\s*$', line):
        return '\\' + line
    m = re.match(r'\d{1,9}(?=[.)](\s|$))', line)
    return line[:m.end()] + '\\' + line[m.end():] if m else line


def prose_line(text):
    return escape_line_start(inline_md(text.strip()))


TERM_LINE = re.compile(r'( +)(\S+) {2,}(\S.*)$')
LABEL_LINE = re.compile(r'[A-Za-z][\w-]*: ')


def definition_run(lines, k):
    """End of a run of indented 'TERM   description' lines from lines[k] (deeper
    indented lines continue a description), or None unless it holds two terms."""
    m = TERM_LINE.match(lines[k])
    if not m:
        return None
    indent, terms, j = len(m.group(1)), 0, k
    while j < len(lines):
        mj = TERM_LINE.match(lines[j])
        lead = len(lines[j]) - len(lines[j].lstrip())
        if mj and len(mj.group(1)) == indent:
            terms += 1
        elif not lines[j].strip() or lead <= indent:
            break
        j += 1
    return j if terms >= 2 else None


def render_definitions(lines):
    """A run of 'TERM   description' lines (see definition_run) as a bullet list."""
    out, indent = [], len(TERM_LINE.match(lines[0]).group(1))
    for line in lines:
        m = TERM_LINE.match(line)
        if m and len(m.group(1)) == indent:
            term = m.group(2) if '`' in m.group(2) else '`%s`' % m.group(2)
            out.append('- %s: %s' % (term, prose_line(m.group(3))))
        else:
            out.append('  ' + prose_line(line))
    return out


def render_paragraph(lines):
    """One paragraph of comment lines as Markdown lines (may hold lists)."""
    out, in_list, k = [], False, 0
    # A '- ' line opens a list at the paragraph start, after a ':', or when there are
    # several; otherwise it is more likely a wrapped minus sign.
    dashes = sum(1 for line in lines if line.startswith('- '))
    while k < len(lines):
        end = definition_run(lines, k)
        if end is not None:
            out += [''] + render_definitions(lines[k:end]) + ['']
            in_list, k = False, end
            continue
        line, text = lines[k], lines[k].strip()
        starts_list = k == 0 or in_list or dashes >= 2 or lines[k - 1].rstrip().endswith(':')
        if text.startswith('- ') and starts_list:
            if not in_list:
                out.append('')
            out.append('- ' + prose_line(text[2:]))
            in_list = True
        elif in_list and line.startswith('  '):
            out.append('  ' + prose_line(text))
        else:
            if in_list:
                out.append('')
            elif k and out[-1] and LABEL_LINE.match(text) \
                    and lines[k - 1].rstrip().endswith(('.', ':')):
                out[-1] += '\\'  # hard line break: keep "label: ..." lines apart
            out.append(prose_line(text))
            in_list = False
        k += 1
    return out


def render_prose(lines):
    """Comment lines as Markdown: blank lines separate paragraphs."""
    out, para = [], []
    for line in lines + ['']:
        if line.strip():
            para.append(line)
        elif para:
            out += render_paragraph(para) + ['']
            para = []
    return tidy(out)


def tidy(lines):
    """Collapses runs of blank lines and trims blank lines at both ends."""
    out = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return out


def code_block(code):
    fence = '```'
    while fence in code:
        fence += '`'
    return [fence + 'c'] + code.rstrip().split('\n') + [fence]


ABBREVIATIONS = ('i.e.', 'e.g.', 'cf.', 'vs.', 'etc.', 'al.', 'Eq.', 'Eqs.', 'Fig.', 'No.')


def first_sentence(lines):
    """The first sentence of a comment's first paragraph, on one line."""
    para = []
    for line in lines:
        if not line.strip():
            break
        para.append(line.strip())
    text = ' '.join(para)
    for m in re.finditer(r'[.!?](?=\s|$)', text):
        word = text[:m.end()].split()[-1].lstrip('(')
        if word.endswith(ABBREVIATIONS) or not word.strip('.'):
            continue
        return text[:m.end()]
    return text


class Slugger:
    """Anchors as GitHub and GitLab derive them from heading text."""

    def __init__(self):
        self.seen = {}

    def slug(self, heading):
        text = heading.replace('`', '').strip().lower()
        base = re.sub(r'[^\w\- ]', '', text).replace(' ', '-')
        count = self.seen.get(base, 0)
        self.seen[base] = count + 1
        return base if count == 0 else '%s-%d' % (base, count)


# ---- headers ----------------------------------------------------------------------------

class Header:
    """One parsed header: its file comment, includes and items in source order."""

    def __init__(self, name):
        self.name = name             # 'cp_als.h'
        self.title = 'tenport/' + name
        self.anchor = ''             # of its heading, set when the document is rendered
        self.file_comment = []       # lines
        self.includes = []
        self.items = []              # ('prose', lines) / ('section', title, lines) /
                                     # ('group', lines or None, [Decl])


def is_declaration(chunk):
    return chunk.kind != 'comment'


def is_file_comment(chunks):
    """Whether chunks open with a comment about the file: not a banner, and not
    directly above a declaration (that one would document the declaration)."""
    if not chunks or chunks[0].kind != 'comment':
        return False
    if banner_title(comment_lines(chunks[0].text)) is not None:
        return False
    return len(chunks) == 1 or chunks[1].blank_before


def parse_header(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        src = f.read()
    header = Header(os.path.basename(path))
    chunks, header.includes = strip_preprocessor(split_chunks(src))
    rel = os.path.relpath(path, REPO_ROOT)
    if is_file_comment(chunks):
        header.file_comment = comment_lines(chunks.pop(0).text)
    else:
        warn('%s: no file comment at the top' % rel)
    k = 0
    while k < len(chunks):
        k = parse_item(chunks, k, header.items, rel)
    return header


def parse_item(chunks, k, items, rel):
    """Appends the item starting at chunks[k]; returns the index after it."""
    chunk = chunks[k]
    doc = None
    if chunk.kind == 'comment':
        lines = comment_lines(chunk.text)
        title = banner_title(lines)
        attached = k + 1 < len(chunks) and is_declaration(chunks[k + 1]) \
            and not chunks[k + 1].blank_before
        if title is not None:
            items.append(('section', title, lines[1:]))
            return k + 1
        if not attached:
            items.append(('prose', lines))
            return k + 1
        doc, k = lines, k + 1
    # A run of declarations with no blank line in between shares the comment above it.
    decls = [describe(chunks[k])]
    k += 1
    while k < len(chunks) and is_declaration(chunks[k]) and not chunks[k].blank_before:
        decls.append(describe(chunks[k]))
        k += 1
    for d, chunk in zip(decls, chunks[k - len(decls):k]):
        if d.kind == 'unparsed':
            warn('%s:%d: declaration not understood; shown as written' % (rel, chunk.line))
    items.append(('group', doc, decls))
    return k


def header_order(names, umbrella_includes):
    """The umbrella header, then those it includes in its order, then the rest."""
    order = [UMBRELLA] if UMBRELLA in names else []
    for inc in umbrella_includes:
        name = os.path.basename(inc.strip('<>"'))
        if name in names and name not in order:
            order.append(name)
    return order + sorted(n for n in names if n not in order)


def load_headers(directory):
    paths = {n: os.path.join(directory, n) for n in os.listdir(directory) if n.endswith('.h')}
    headers = {n: parse_header(p) for n, p in paths.items()}
    umbrella = headers[UMBRELLA].includes if UMBRELLA in headers else []
    return [headers[n] for n in header_order(list(headers), umbrella)]


# ---- the document -----------------------------------------------------------------------

def group_heading(decls):
    # a name defined on both branches of an #if is one name
    names = list(dict.fromkeys(n for d in decls for n in d.names))
    if len(names) <= 4:
        return ', '.join('`%s`' % n for n in names)
    return '`%s`, `%s` and %d more' % (names[0], names[1], len(names) - 2)


def render_header(header, slugger):
    out = ['## `%s`' % header.title, '']
    header.anchor = slugger.slug(header.title)
    out += render_prose(header.file_comment) + ['']
    if header.includes:
        out += ['Includes: ' + ', '.join('`%s`' % i for i in header.includes) + '.', '']
    for item in header.items:
        if item[0] == 'prose':
            out += render_prose(item[1]) + ['']
        elif item[0] == 'section':
            title = item[1][:1].upper() + item[1][1:]
            slugger.slug(title)
            out += ['### ' + inline_md(title), ''] + render_prose(item[2]) + ['']
        else:
            doc, decls = item[1], item[2]
            heading = group_heading(decls)
            if heading:
                slugger.slug(heading)
                out += ['#### ' + heading, '']
            out += code_block('\n'.join(d.code for d in decls)) + ['']
            if doc:
                out += render_prose(doc) + ['']
    return out


def render_document(headers):
    slugger = Slugger()
    title, contents = '# tenport API reference', '## Contents'
    slugger.slug(title)
    slugger.slug(contents)
    body = []
    for header in headers:
        body += render_header(header, slugger)
    intro = ('Generated from the headers in `include/tenport/` by `%s`: edit the headers, '
             'not this file, then regenerate it.' % SELF)
    if any(h.name == UMBRELLA for h in headers):
        intro += ' Include `tenport/%s` to get the whole API.' % UMBRELLA
    top = [title, '', intro, '', contents, '']
    for header in headers:
        summary = prose_line(first_sentence(header.file_comment)) or '(no description)'
        top.append('- [`%s`](#%s): %s' % (header.title, header.anchor, summary))
    return '\n'.join(tidy(top + [''] + body)) + '\n'


def check(path, text):
    try:
        with open(path, encoding='utf-8') as f:
            current = f.read()
    except OSError:
        current = None
    if current == text:
        return 0
    print('%s is out of date: run %s --output %s' % (path, SELF, path), file=sys.stderr)
    if current is not None:
        diff = list(difflib.unified_diff(current.split('\n'), text.split('\n'),
                                         'current', 'regenerated', lineterm='', n=1))
        print('\n'.join(diff[:40] + (['...'] if len(diff) > 40 else [])), file=sys.stderr)
    return 1


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument('--output', metavar='FILE', help='write the reference to FILE')
    mode.add_argument('--check', metavar='FILE',
                      help='exit 1 if FILE differs from what --output would write')
    parser.add_argument('--headers', metavar='DIR', default=HEADER_DIR,
                        help='directory of the headers (default: include/tenport)')
    args = parser.parse_args(argv)
    if not os.path.isdir(args.headers):
        parser.error('no header directory %s' % args.headers)
    text = render_document(load_headers(args.headers))
    if args.check:
        return check(args.check, text)
    with open(args.output, 'w', encoding='utf-8', newline='\n') as f:
        f.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
