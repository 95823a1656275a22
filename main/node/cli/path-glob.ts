// A quoted glob (`'scans/**/*.tif'`) as a shell would have expanded it, for operators whose shell does not
// (no globstar, Windows) or who quote it to keep the folder tree: `*` and `?` within a name, `[...]` a
// character of a class (`[!...]` not of it), `**` as a whole part any number of folders. Node 20 has no
// fs.glob in every release, and this is all the CLI needs of one.

export interface PathGlob {
  /** The folder the pattern's fixed leading parts name ('.' when it starts with a wildcard): where the walk begins. */
  base: string;
  /** Matches a path below `base`, its parts joined by '/'. */
  matches(relative: string): boolean;
  /** How many folders below `base` a match can lie; Infinity with `**`. */
  depth: number;
}

const WILDCARD = /[*?[]/;

export function isGlob(typed: string): boolean {
  return WILDCARD.test(typed);
}

function partPattern(part: string): string {
  let out = '';
  for (let i = 0; i < part.length; i++) {
    const c = part[i]!;
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[' && part.indexOf(']', i + 2) > 0) {
      const end = part.indexOf(']', i + 2);
      let body = part.slice(i + 1, end);
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      out += `[${negated ? '^/' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return out;
}

export function parseGlob(pattern: string): PathGlob {
  const parts = pattern.split('/');
  const fixed: string[] = [];
  while (parts.length > 1 && !isGlob(parts[0]!)) fixed.push(parts.shift()!);
  const base = fixed.length === 0 ? '.' : fixed.join('/') || '/';
  const rest = parts.filter((p) => p !== '');
  const source = rest.map((p, i) => {
    const last = i === rest.length - 1;
    if (p === '**') return last ? '.+' : '(?:[^/]+/)*';
    return partPattern(p) + (last ? '' : '/');
  }).join('');
  const regex = new RegExp(`^${source}$`);
  return {
    base,
    matches: (relative) => regex.test(relative),
    depth: rest.includes('**') ? Infinity : rest.length - 1,
  };
}
