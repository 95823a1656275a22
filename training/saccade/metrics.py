"""Scores: character error rate, table TEDS (tree edit distance similarity) and formula exact match."""
from html.parser import HTMLParser


def edit_distance(a, b):
    """Levenshtein distance between two sequences."""
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def cer(pred, truth):
    return edit_distance(pred, truth) / max(1, len(truth))


def normalize_formula(latex):
    """Token sequence with single spaces: exact match then ignores spacing differences only."""
    return " ".join(latex.split())


class _Node:
    __slots__ = ("tag", "attrs", "text", "children")

    def __init__(self, tag, attrs=""):
        self.tag, self.attrs, self.text, self.children = tag, attrs, "", []


class _TableParser(HTMLParser):
    """table > tr > td|th tree; thead/tbody/b are dropped so header markup conventions do not count."""
    STRUCT = {"table", "tr", "td", "th"}

    def __init__(self):
        super().__init__()
        self.root = _Node("root")
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        if tag in self.STRUCT:
            span = " ".join(f"{k}={v}" for k, v in sorted(attrs) if k in ("colspan", "rowspan"))
            node = _Node("td" if tag == "th" else tag, span)
            self.stack[-1].children.append(node)
            self.stack.append(node)

    def handle_endtag(self, tag):
        tag = "td" if tag == "th" else tag
        if tag in self.STRUCT:
            for k in range(len(self.stack) - 1, 0, -1):
                if self.stack[k].tag == tag:
                    del self.stack[k:]
                    break

    def handle_data(self, data):
        if self.stack[-1].tag == "td":
            self.stack[-1].text += data


def parse_table(html):
    p = _TableParser()
    p.feed(html)
    p.close()
    return p.root


def _postorder(root):
    """Nodes in post-order, and the index of each node's leftmost leaf (Zhang-Shasha)."""
    nodes, leftmost = [], []

    def walk(n):
        first = None
        for c in n.children:
            lm = walk(c)
            first = lm if first is None else first
        nodes.append(n)
        leftmost.append(len(nodes) - 1 if first is None else first)
        return leftmost[-1]

    walk(root)
    return nodes, leftmost


def _rename_cost(a, b):
    if a.tag != b.tag or a.attrs != b.attrs:
        return 1.0
    if a.tag == "td":
        ta, tb = " ".join(a.text.split()), " ".join(b.text.split())
        return edit_distance(ta, tb) / max(1, len(ta), len(tb))
    return 0.0


def tree_edit_distance(t1, t2):
    """Zhang-Shasha with unit insert/delete and the TEDS rename cost."""
    n1, l1 = _postorder(t1)
    n2, l2 = _postorder(t2)
    kr1 = [i for i in range(len(n1)) if not any(l1[j] == l1[i] for j in range(i + 1, len(n1)))]
    kr2 = [i for i in range(len(n2)) if not any(l2[j] == l2[i] for j in range(i + 1, len(n2)))]
    td = [[0.0] * len(n2) for _ in n1]
    for i in kr1:
        for j in kr2:
            li, lj = l1[i], l2[j]
            fd = [[0.0] * (j - lj + 2) for _ in range(i - li + 2)]
            for x in range(1, i - li + 2):
                fd[x][0] = fd[x - 1][0] + 1
            for y in range(1, j - lj + 2):
                fd[0][y] = fd[0][y - 1] + 1
            for x in range(1, i - li + 2):
                for y in range(1, j - lj + 2):
                    a, b = li + x - 1, lj + y - 1
                    if l1[a] == li and l2[b] == lj:
                        fd[x][y] = min(fd[x - 1][y] + 1, fd[x][y - 1] + 1,
                                       fd[x - 1][y - 1] + _rename_cost(n1[a], n2[b]))
                        td[a][b] = fd[x][y]
                    else:
                        fd[x][y] = min(fd[x - 1][y] + 1, fd[x][y - 1] + 1,
                                       fd[l1[a] - li][l2[b] - lj] + td[a][b])
    return td[-1][-1], len(n1), len(n2)


def teds(pred_html, truth_html):
    dist, a, b = tree_edit_distance(parse_table(pred_html), parse_table(truth_html))
    return 1.0 - dist / max(a, b)
