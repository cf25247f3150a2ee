// Every ```ts block of the READMEs (and the SDK reference's intro page) compiles, as a module of
// its own, against the workspace's sources with the repository's strict settings: no API that
// does not exist, no wrong option, no name that comes from nowhere. What a document's prose sets
// up once for all its blocks (the `lh` client of its first block, the test's `leasehold`
// handlers, "your" `runWorker`) is declared, with its type, in one visible-in-source HTML comment
// of that document, `<!-- snippet-context ... -->`, which is put in front of each of its blocks
// (less any name the block imports or declares itself). A block that continues the previous one
// says so on its first line, `// (continues)`, and is compiled with it in one module.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const DOCUMENTS = [
  'README.md',
  'packages/client/README.md',
  'packages/msw/README.md',
  'packages/server/README.md',
  'packages/protocol/README.md',
  'examples/README.md',
  'examples/claims-worker/README.md',
  'examples/task-worker/README.md',
  'examples/queue-consumer/README.md',
  'examples/worker-with-msw/README.md',
  'docs/client-intro.md',
];
const CONTINUES = /^\/\/ \(continues\)/;

interface Snippet {
  document: string;
  line: number;
  code: string;
  /** The document's snippet context (one declaration or import per line). */
  context: string[];
}

const CONTEXT = /<!-- snippet-context\n([\s\S]*?)-->/;

/** The names a block imports or declares at its top level (roughly: enough to drop a context line). */
function namesIn(code: string): Set<string> {
  const names = new Set<string>();
  for (const match of code.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const part of match[1]!.split(',')) {
      const name = part.replace(/\btype\s+/, '').split(/\s+as\s+/).at(-1)!.trim();
      if (name) names.add(name);
    }
  }
  for (const match of code.matchAll(/import\s+(?:type\s+)?(\w+)\s+from/g)) names.add(match[1]!);
  for (const match of code.matchAll(/^(?:export\s+)?(?:async\s+)?(?:const|let|var|function|class|interface|type)\s+(\w+)/gm)) names.add(match[1]!);
  return names;
}

/** The context lines a block needs: imports less what it imports, declarations less what it declares. */
function contextFor(context: string[], code: string): string {
  const own = namesIn(code);
  return context
    .map((line) => {
      const imported = /^import\s+(type\s+)?\{([^}]*)\}\s+from\s+(.*)$/.exec(line);
      if (imported) {
        const kept = imported[2]!.split(',').map((part) => part.trim()).filter((part) => part && !own.has(part.replace(/\btype\s+/, '')));
        return kept.length === 0 ? '' : `import ${imported[1] ?? ''}{ ${kept.join(', ')} } from ${imported[3]}`;
      }
      const declared = /^declare\s+(?:const|let|function|class)\s+(\w+)/.exec(line);
      return declared && own.has(declared[1]!) ? '' : line;
    })
    .filter((line) => line !== '')
    .join('\n');
}

/** The ```ts blocks of one markdown file, each with the line its code starts on; continued ones joined. */
function snippetsOf(document: string): Snippet[] {
  const text = readFileSync(join(root, document), 'utf8');
  const context = (CONTEXT.exec(text)?.[1] ?? '').split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('//'));
  const lines = text.split('\n');
  const out: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '```ts') continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end]!.trim() !== '```') end++;
    const code = lines.slice(start, end).join('\n');
    const previous = out.at(-1);
    if (CONTINUES.test(code) && previous !== undefined) previous.code += `\n${code}`;
    else out.push({ document, line: start + 1, code, context });
    i = end;
  }
  return out;
}

const snippets = DOCUMENTS.flatMap(snippetsOf);
const work = join(root, 'tmp', `readme-snippets-${process.pid}`);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('README snippets', () => {
  it('finds the snippets', () => {
    expect(snippets.length).toBeGreaterThan(15);
  });

  it('compile, each as a module, against the workspace sources', () => {
    mkdirSync(work, { recursive: true });
    const files = snippets.map((snippet) => {
      const file = join(work, `${snippet.document.replace(/[^\w]+/g, '_')}_L${snippet.line}.ts`);
      // The context goes on the block's first line (after it, a line number is the block's own).
      const prelude = contextFor(snippet.context, snippet.code).replace(/\n/g, ' ');
      writeFileSync(file, `${prelude}${prelude ? ' ' : ''}${snippet.code}\nexport {};\n`);
      return { file, snippet };
    });
    const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
    const program = ts.createProgram(
      files.map(({ file }) => file),
      { ...config.options, noEmit: true, noUnusedLocals: false, noUnusedParameters: false },
    );
    const problems = files.flatMap(({ file, snippet }) => {
      const source = program.getSourceFile(file)!;
      return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((diagnostic) => {
        const { line } = diagnostic.start === undefined ? { line: 0 } : source.getLineAndCharacterOfPosition(diagnostic.start);
        return `${snippet.document}:${snippet.line + line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
      });
    });
    expect(problems, `snippets that do not compile (written to ${relative(root, work)})`).toEqual([]);
  }, 120_000);
});
