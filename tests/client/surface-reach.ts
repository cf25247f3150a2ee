// Which named types of the client's sources the public surface's signatures use, transitively:
// the namespace `Leasehold` names exactly those that are not root exports (api-report.test.ts).
import ts from 'typescript';
import { CLIENT_SRC } from './public-surface.js';

const inClient = (node: ts.Node) => node.getSourceFile().fileName.startsWith(CLIENT_SRC);
/** Wire types are named as `Wire.<Name>` (wire.ts re-exports these files), never in the namespace. */
const WIRE_FILES = ['resources/wire-types.ts', 'wire.ts'].map((file) => `${CLIENT_SRC}${file}`);
const isWire = (node: ts.Node) => WIRE_FILES.includes(node.getSourceFile().fileName);

function isHidden(node: ts.Node): boolean {
  if (ts.getJSDocTags(node).some((tag) => tag.tagName.text === 'internal')) return true;
  if ((ts.isPropertyDeclaration(node) || ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) && node.name && ts.isPrivateIdentifier(node.name)) return true;
  const mods = ts.canHaveModifiers(node) ? (ts.getModifiers(node) ?? []) : [];
  return mods.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword);
}

/** The declarations of the client's sources that `entry`'s exports name in their public signatures, by symbol. */
export function reachableTypes(program: ts.Program, entry: string): Map<ts.Symbol, string> {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry)!;
  const reached = new Map<ts.Symbol, string>();
  const resolve = (symbol: ts.Symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
  const visitDeclaration = (decl: ts.Node): void => {
    const walk = (node: ts.Node): void => {
      if (node !== decl && isHidden(node)) return;
      // What a class implements is not part of its type (its members are walked instead).
      if (ts.isHeritageClause(node) && node.token === ts.SyntaxKind.ImplementsKeyword) return;
      // A class's body beyond its signatures (initialisers, method bodies) is not surface.
      if (ts.isBlock(node) || (ts.isPropertyDeclaration(node) && node.initializer && !node.type)) return;
      if (ts.isTypeReferenceNode(node) || ts.isExpressionWithTypeArguments(node) || ts.isTypeQueryNode(node)) {
        const name = ts.isTypeReferenceNode(node) ? node.typeName : ts.isTypeQueryNode(node) ? node.exprName : node.expression;
        const symbol = checker.getSymbolAtLocation(name);
        if (symbol) visitSymbol(resolve(symbol));
      }
      if (ts.isPropertyDeclaration(node) && node.initializer === undefined && node.type === undefined) return;
      ts.forEachChild(node, walk);
    };
    walk(decl);
  };
  const visitSymbol = (symbol: ts.Symbol): void => {
    if (reached.has(symbol)) return;
    const decls = (symbol.declarations ?? []).filter(inClient);
    if (decls.length === 0) return;
    if (!(symbol.flags & (ts.SymbolFlags.Type | ts.SymbolFlags.Class | ts.SymbolFlags.Function)) || symbol.flags & ts.SymbolFlags.TypeParameter) return;
    if (decls.some(isWire)) return;
    reached.set(symbol, symbol.name);
    for (const decl of decls) visitDeclaration(decl);
  };
  for (const exported of checker.getExportsOfModule(checker.getSymbolAtLocation(source)!)) {
    const symbol = resolve(exported);
    if (symbol.flags & (ts.SymbolFlags.NamespaceModule | ts.SymbolFlags.ValueModule) && !(symbol.flags & ts.SymbolFlags.Class)) continue; // Wire
    reached.delete(symbol);
    visitSymbol(symbol);
  }
  return reached;
}
