// The public surface of @leasehold/client, read with the TypeScript compiler from its entry
// points: the API report (`api/client.api.md`, checked by api-report.test.ts) and every JSDoc
// `@example` of it (type-checked by the same test). Update the report after a deliberate
// surface change with `pnpm api:client`.
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
export const CLIENT_SRC = here('../../packages/client/src/');
export const REPORT_PATH = here('../../packages/client/api/client.api.md');

/** The root tsconfig's options (paths map the workspace packages to their sources). */
export function compilerOptions(): ts.CompilerOptions {
  const configPath = here('../../tsconfig.json');
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, here('../../'));
  return { ...parsed.options, noEmit: true };
}

const flags = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseFullyQualifiedType | ts.TypeFormatFlags.WriteArrowStyleSignature;

function kindOf(symbol: ts.Symbol): string {
  const f = symbol.flags;
  if (f & ts.SymbolFlags.Class) return f & ts.SymbolFlags.Namespace || f & ts.SymbolFlags.NamespaceModule ? 'class + namespace' : 'class';
  if (f & ts.SymbolFlags.Interface) return 'interface';
  if (f & ts.SymbolFlags.TypeAlias) return 'type';
  if (f & ts.SymbolFlags.Function) return 'function';
  if (f & ts.SymbolFlags.Variable) return 'const';
  if (f & (ts.SymbolFlags.ValueModule | ts.SymbolFlags.NamespaceModule)) return 'namespace';
  return 'other';
}

function isPublicMember(symbol: ts.Symbol): boolean {
  if (symbol.name.startsWith('#') || symbol.name.startsWith('__@')) return false;
  const mods = symbol.valueDeclaration ? ts.getCombinedModifierFlags(symbol.valueDeclaration) : 0;
  return (mods & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) === 0 && !isInternal(symbol);
}

function isInternal(symbol: ts.Symbol): boolean {
  return (symbol.declarations ?? []).some((d) => ts.getJSDocTags(d).some((tag) => tag.tagName.text === 'internal'));
}

/** One line per member of a class or interface: `name: type`. */
function members(checker: ts.TypeChecker, symbol: ts.Symbol, decl: ts.Node): string[] {
  const type = symbol.flags & ts.SymbolFlags.Class ? checker.getDeclaredTypeOfSymbol(symbol) : checker.getDeclaredTypeOfSymbol(symbol);
  const lines: string[] = [];
  for (const member of checker.getPropertiesOfType(type)) {
    if (!isPublicMember(member)) continue;
    lines.push(`    ${member.name}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(member, decl), decl, flags)}`);
  }
  if (symbol.flags & ts.SymbolFlags.Class) {
    const statics = checker.getTypeOfSymbolAtLocation(symbol, decl);
    for (const sig of statics.getConstructSignatures()) {
      if (sig.declaration && ts.getJSDocTags(sig.declaration).some((t) => t.tagName.text === 'internal')) continue;
      lines.push(`    new ${checker.signatureToString(sig, decl, flags)}`);
    }
  }
  return lines.sort();
}

/** A namespace member's report lines: its name and kind, and a class's or interface's members. */
function namespaceMember(checker: ts.TypeChecker, member: ts.Symbol, prefix: string): string[] {
  const symbol = member.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(member) : member;
  const decl = symbol.declarations?.[0];
  if (!decl) return [];
  const lines = [`  - ${prefix}${member.name} (${kindOf(symbol)})`];
  if (symbol.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface)) lines.push(...members(checker, symbol, decl).map((line) => `  ${line}`));
  return lines;
}

/** The API report of one entry point: every export, its kind, and its members' types. */
export function apiReport(program: ts.Program, entry: string): { names: string[]; text: string } {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  if (!source) throw new Error(`no source file ${entry}`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`${entry} is not a module`);
  const exports = checker.getExportsOfModule(moduleSymbol).sort((a, b) => a.name.localeCompare(b.name));
  const out: string[] = [];
  for (const exported of exports) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const decl = symbol.declarations?.[0] ?? source;
    const kind = kindOf(symbol);
    out.push(`- ${exported.name} (${kind})`);
    if (symbol.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface)) out.push(...members(checker, symbol, decl));
    else if (symbol.flags & ts.SymbolFlags.TypeAlias) out.push(`    = ${checker.typeToString(checker.getDeclaredTypeOfSymbol(symbol), decl, flags | ts.TypeFormatFlags.InTypeAlias)}`);
    else if (symbol.flags & ts.SymbolFlags.Variable) out.push(`    : ${checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, decl), decl, flags)}`);
    if (symbol.flags & (ts.SymbolFlags.NamespaceModule | ts.SymbolFlags.ValueModule)) {
      const inner = checker.getExportsOfModule(symbol).sort((a, b) => a.name.localeCompare(b.name));
      out.push(`    namespace members (${inner.length}): ${inner.map((s) => s.name).join(', ')}`);
      // The namespace's classes and interfaces with their members (`Leasehold.Tasks`, `.Space`, `.SpoolQueue`, …), so a method change shows in review.
      if (exported.name !== 'Wire') for (const member of inner) out.push(...namespaceMember(checker, member, `${exported.name}.`));
    }
  }
  // Types printed as `import("<absolute path>")` name the file relative to the repository, so the report is the same on every machine.
  const root = here('../../');
  return { names: exports.map((s) => s.name), text: out.join('\n').replaceAll(`import("${root}`, 'import("') };
}

/** Every `@example` on the exports of `entry`, on their members, and on the types their namespace names. */
export function publicExamples(program: ts.Program, entry: string): Array<{ where: string; code: string }> {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry)!;
  const seen = new Set<ts.Symbol>();
  const found: Array<{ where: string; code: string }> = [];
  const visit = (symbol: ts.Symbol, depth: number): void => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    if (seen.has(target) || depth > 3) return;
    seen.add(target);
    for (const decl of target.declarations ?? []) {
      if (!decl.getSourceFile().fileName.startsWith(CLIENT_SRC.replace(/\/$/, ''))) continue;
      for (const tag of ts.getJSDocTags(decl)) {
        if (tag.tagName.text !== 'example') continue;
        const text = typeof tag.comment === 'string' ? tag.comment : ts.getTextOfJSDocComment(tag.comment) ?? '';
        found.push({ where: `${decl.getSourceFile().fileName.slice(CLIENT_SRC.length)}: ${target.name}`, code: text });
      }
      // Type aliases in the namespace point at the real declarations: follow them.
      if (ts.isTypeAliasDeclaration(decl) && ts.isTypeReferenceNode(decl.type)) {
        const referenced = checker.getSymbolAtLocation(decl.type.typeName);
        if (referenced) visit(referenced, depth + 1);
      }
    }
    if (target.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface)) {
      for (const member of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(target))) if (isPublicMember(member)) visit(member, depth + 1);
    }
    if (target.flags & (ts.SymbolFlags.NamespaceModule | ts.SymbolFlags.ValueModule)) for (const inner of checker.getExportsOfModule(target)) visit(inner, depth + 1);
  };
  const moduleSymbol = checker.getSymbolAtLocation(source)!;
  for (const exported of checker.getExportsOfModule(moduleSymbol)) visit(exported, 0);
  return found;
}
