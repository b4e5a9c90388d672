/**
 * The shape of the house, read from the sources: `npx tsx bench/house.ts [repository root]` prints one table
 * (what each figure means: bench/README.md, "The house"). Nothing is asserted; the same script is run on the
 * commit before a change and after it, so the two columns are measured the same way.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const root = resolve(process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? join(import.meta.dirname, '..'));
const PACKAGES = ['host', 'addon-sdk', 'integrator-template'];
const SKIPPED = new Set(['node_modules', 'dist', 'migrations', 'addon-template', 'test', 'fixtures']);

/** Every .ts/.tsx source of a folder, tests, builds and scaffold templates left out. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : sources(path);
    return /\.tsx?$/.test(entry.name) && !/\.(test|d)\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Every .ts/.tsx file that may import a package (sources, tests, bench), builds left out. */
function importers(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return ['node_modules', 'dist', '.git', '.addon-kit'].includes(entry.name) ? [] : importers(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

const options: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  allowImportingTsExtensions: true,
  customConditions: ['source'],
  jsx: ts.JsxEmit.ReactJSX,
};
const host = ts.createCompilerHost(options);

/** The module specifiers a file imports or re-exports (static and dynamic, type-only ones marked). */
function specifiers(source: ts.SourceFile): { specifier: string; typeOnly: boolean }[] {
  const found: { specifier: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const parse = (file: string) =>
  ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true, ts.ScriptKind.TSX);

const files = PACKAGES.flatMap((name) => sources(join(root, name)));
const parsed = new Map(files.map((file) => [file, parse(file)]));

/** file → the repository files it imports (through relative paths, package names or the test-only alias). */
const edges = new Map<string, { to: string; typeOnly: boolean; specifier: string }[]>();
for (const [file, source] of parsed) {
  const out: { to: string; typeOnly: boolean; specifier: string }[] = [];
  for (const { specifier, typeOnly } of specifiers(source)) {
    const resolved = ts.resolveModuleName(specifier, file, options, host).resolvedModule;
    if (!resolved) continue;
    const to = ts.sys.realpath ? ts.sys.realpath(resolved.resolvedFileName) : resolved.resolvedFileName;
    if (parsed.has(to)) out.push({ to, typeOnly, specifier });
  }
  edges.set(file, out);
}

const rel = (file: string) => relative(root, file);

/** Strongly connected components (Tarjan) of a graph given as node → successors. */
function components(nodes: string[], next: (node: string) => string[]): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const result: string[][] = [];
  const strong = (node: string): void => {
    indexOf.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const to of next(node)) {
      if (!indexOf.has(to)) {
        strong(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, indexOf.get(to)!));
    }
    if (low.get(node) === indexOf.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      result.push(component);
    }
  };
  for (const node of nodes) if (!indexOf.has(node)) strong(node);
  return result;
}

/**
 * A folder as rooms on floors: its rooms are its children (a file, or a folder with its sources), an arrow goes
 * from a room to each room it imports from; the floor of a room is one above the highest room it imports from
 * (rooms importing each other share a floor). Arrows running back up: arrows between rooms that import each other.
 */
function roomsAndFloors(folder: string) {
  const base = join(root, folder);
  const inside = files.filter((file) => file.startsWith(base + sep));
  const roomOf = (file: string) => relative(base, file).split(sep)[0]!;
  const rooms = [...new Set(inside.map(roomOf))];
  const arrows = new Map<string, Set<string>>(rooms.map((room) => [room, new Set()]));
  for (const file of inside)
    for (const { to } of edges.get(file)!)
      if (to.startsWith(base + sep) && roomOf(to) !== roomOf(file)) arrows.get(roomOf(file))!.add(roomOf(to));
  const sccs = components(rooms, (room) => [...arrows.get(room)!]);
  const sccOf = new Map(sccs.flatMap((scc, i) => scc.map((room) => [room, i])));
  const floorOfScc = new Map<number, number>();
  // Tarjan emits components in reverse topological order: what a component imports comes out before it.
  sccs.forEach((scc, i) => {
    let floor = 1;
    for (const room of scc)
      for (const to of arrows.get(room)!)
        if (sccOf.get(to) !== i) floor = Math.max(floor, floorOfScc.get(sccOf.get(to)!)! + 1);
    floorOfScc.set(i, floor);
  });
  const backUp = rooms.flatMap((room) =>
    [...arrows.get(room)!].filter((to) => sccOf.get(to) === sccOf.get(room)).map((to) => `${room} → ${to}`),
  );
  const loose = rooms.filter((room) => /\.tsx?$/.test(room)).length;
  return { rooms: rooms.length, loose, floors: Math.max(0, ...floorOfScc.values()), backUp };
}

/** Folders with an index.ts (a door): imports from outside the folder that land on another file inside it. */
function pastDoors(within: string) {
  const doors = [...new Set(files.map((file) => dirname(file)))].filter(
    (dir) => dir.startsWith(join(root, within)) && existsSync(join(dir, 'index.ts')),
  );
  const crossings: string[] = [];
  for (const [file, out] of edges)
    for (const { to } of out)
      for (const door of doors)
        if (!file.startsWith(door + sep) && to.startsWith(door + sep) && to !== join(door, 'index.ts'))
          crossings.push(`${rel(file)} → ${rel(to)}`);
  return crossings;
}

/** Import cycles between files (every import, and value imports only). */
function circles(valueOnly: boolean) {
  return components(files, (file) =>
    edges
      .get(file)!
      .filter((edge) => !valueOnly || !edge.typeOnly)
      .map((edge) => edge.to),
  )
    .filter((scc) => scc.length > 1)
    .map((scc) => scc.map(rel).sort().join(' ↔ '));
}

/** Import lines, in sources, tests and bench, that name a package's `internal/` entry. */
function internalImports(): number {
  let count = 0;
  for (const file of importers(root))
    for (const { specifier } of specifiers(parse(file))) if (/^@addon-kit\/[^/]+\/internal\//.test(specifier)) count++;
  return count;
}

/** Each table of the host (its migrations) → the host files issuing SQL on it (test/host/db/table-owners.test.ts's pattern). */
function tableOwners() {
  const migrations = join(root, 'host/db/migrations');
  const tables = new Set<string>();
  for (const name of readdirSync(migrations))
    for (const m of readFileSync(join(migrations, name), 'utf8').matchAll(
      /CREATE (?:UNLOGGED )?TABLE (?:IF NOT EXISTS )?(\w+)/gi,
    ))
      tables.add(m[1]!);
  const hostFiles = files.filter((file) => file.startsWith(join(root, 'host') + sep));
  return [...tables].sort().map((table) => {
    const pattern = new RegExp(`\\b(FROM|JOIN|INTO|UPDATE|TABLE)\\s+${table}\\b`);
    const issuing = hostFiles.filter((file) => pattern.test(readFileSync(file, 'utf8'))).map(rel);
    /** A module is a file, or a folder entered through its index.ts holding all of them. */
    const folders = new Set(issuing.map((file) => dirname(file)));
    const oneFolder = folders.size === 1 && existsSync(join(root, [...folders][0]!, 'index.ts'));
    return { table, issuing, owned: issuing.length === 1 || (issuing.length > 1 && oneFolder) };
  });
}

/** Functions (declarations, methods, arrows, expressions) longer than `limit` lines. */
function longFunctions(limit: number) {
  const long: string[] = [];
  for (const [file, source] of parsed) {
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        if (end - start + 1 > limit) long.push(`${rel(file)}:${start + 1} ${end - start + 1} lines`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return long;
}

const lineCount = (file: string) => readFileSync(file, 'utf8').split('\n').length - 1;
const allFolders = [...new Set(files.map((file) => dirname(file)))];
const readmes = allFolders.filter((dir) => existsSync(join(dir, 'README.md')));
const addons = roomsAndFloors('host/addons');
const house = roomsAndFloors('host');
const owners = tableOwners();
const long = longFunctions(80);
const bigFiles = files.filter((file) => lineCount(file) > 300);
const cyclesAll = circles(false);
const cyclesValue = circles(true);
const doors = pastDoors('host');
const addonDoor = doors.filter((line) => / → host\/addons\//.test(line) && !line.startsWith('host/addons/'));
const lines = files.map(lineCount).sort((a, b) => a - b);

const rows: [string, string | number][] = [
  ['source files (3 packages, tests left out)', files.length],
  ['source lines', lines.reduce((a, b) => a + b, 0)],
  ['median file, lines', lines[Math.floor(lines.length / 2)]!],
  ['host/addons: rooms (loose files)', `${addons.rooms} (${addons.loose})`],
  ['host/addons: floors', addons.floors],
  ['host/addons: arrows running back up', addons.backUp.length],
  ['host: rooms (loose files)', `${house.rooms} (${house.loose})`],
  ['host: floors', house.floors],
  ['host: arrows running back up', house.backUp.length],
  ['file circles (every import / value imports)', `${cyclesAll.length} / ${cyclesValue.length}`],
  ["imports of a package's internal/", internalImports()],
  ['imports past a door (host/addons)', `${doors.length} (${addonDoor.length})`],
  ['host tables with one owner', `${owners.filter((o) => o.owned).length} of ${owners.length}`],
  ['functions over 80 lines', long.length],
  ['files over 300 lines', bigFiles.length],
  ['source folders with a README', `${readmes.length} of ${allFolders.length}`],
];
const width = Math.max(...rows.map(([name]) => name.length));
process.stdout.write(
  `house at ${root}\n${rows.map(([name, value]) => `${name.padEnd(width)}  ${value}`).join('\n')}\n`,
);
if (process.argv.includes('--details')) {
  const list = (title: string, items: string[]) =>
    process.stdout.write(`\n${title}\n${items.map((i) => `  ${i}`).join('\n')}\n`);
  list('arrows back up (host/addons)', addons.backUp);
  list('arrows back up (host)', house.backUp);
  list('circles (every import)', cyclesAll);
  list('imports past a door', doors);
  list(
    'tables',
    owners.map((o) => `${o.owned ? 'one ' : 'many'} ${o.table}: ${o.issuing.join(', ')}`),
  );
  list('functions over 80 lines', long);
  list(
    'files over 300 lines',
    bigFiles.map((file) => `${rel(file)} ${lineCount(file)}`),
  );
}
