import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/*
 * SQL values travel as parameters, never inside the text: no hand-written quoting helper, no
 * placeholder rewriting, and no SQL built from a template or a concatenation with values in it.
 * The one interpolation allowed is an identifier quoted by pg's escapeIdentifier (a database or
 * table name, which no parameter can stand for).
 */

const ROOT = path.resolve(__dirname, '../../..');
const QUOTING_HELPERS = new Set(['escapeLiteral', 'sqlString', 'sqlInteger', 'inlineStatement', 'inlineArrays']);
/** Text that reads as a SQL statement (the fleet writes its keywords upper-case). */
const SQL =
  /\b(SELECT\b[\s\S]*\bFROM|INSERT INTO|UPDATE \w+(\.\w+)? (AS \w+ )?SET|DELETE FROM|CREATE (DATABASE|SCHEMA|TABLE|INDEX)|DROP (DATABASE|SCHEMA|TABLE)|ALTER TABLE)\b/;
/** Calls whose first argument is SQL text, whatever it reads like. */
const SQL_CALLS = new Set([
  'raw',
  'whereRaw',
  'andWhereRaw',
  'orWhereRaw',
  'havingRaw',
  'orderByRaw',
  'joinRaw',
  'selectRaw',
  'query',
]);

function sourceFiles(): string[] {
  return execFileSync('git', ['ls-files', '-co', '--exclude-standard', '--', '*.ts', '*.mts', '*.js', '*.mjs'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => f && !/(^|\/)(node_modules|dist|generated)\//.test(f) && !f.endsWith('.d.ts'))
    .filter((f) => existsSync(path.join(ROOT, f)));
}

const isEscapedIdentifier = (e: ts.Expression): boolean =>
  ts.isCallExpression(e) && /(^|\.)escapeIdentifier$/.test(e.expression.getText());

function calledWithSql(node: ts.Node): boolean {
  const call = node.parent;
  if (!call || !ts.isCallExpression(call) || call.arguments[0] !== node) return false;
  const callee = call.expression;
  const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isIdentifier(callee) ? callee.text : '';
  return SQL_CALLS.has(name);
}

/** Where a file quotes SQL values by hand: `line: what`. */
export function handQuotedSql(file: string, text: string): string[] {
  const found: string[] = [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const at = (node: ts.Node, what: string) =>
    found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${what}`);
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && QUOTING_HELPERS.has(node.text)) at(node, `quoting helper ${node.text}`);
    if (ts.isRegularExpressionLiteral(node) && /\\\$\(?\\d/.test(node.text))
      at(node, 'placeholders rewritten by a regex');
    if (ts.isTemplateExpression(node)) {
      const literal = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(' ');
      const values = node.templateSpans.filter((s) => !isEscapedIdentifier(s.expression));
      if (values.length && (SQL.test(literal) || calledWithSql(node)))
        at(node, `SQL text with \${${values[0].expression.getText()}} in it`);
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const sides = [node.left, node.right];
      const sql = sides.some((s) => ts.isStringLiteralLike(s) && SQL.test(s.text));
      if (sql && sides.some((s) => !ts.isStringLiteralLike(s) && !isEscapedIdentifier(s)))
        at(node, 'SQL text concatenated with a value');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('SQL values are parameters, never quoted into the text', () => {
  it('finds no hand quoting anywhere in the sources', () => {
    const found = sourceFiles().flatMap((f) => handQuotedSql(f, readFileSync(path.join(ROOT, f), 'utf8')));
    expect(found).toEqual([]);
  });

  it('recognises each way of quoting by hand, and lets parameters and escaped identifiers through', () => {
    const offending = [
      'conn.query(`SELECT * FROM t WHERE id = ${id}`);',
      'db.raw(`now() - make_interval(secs => ${WINDOW})`);',
      "const q = 'DELETE FROM t WHERE id = ' + id;",
      'const s = sqlString(v);',
      'sql.replace(/\\$(\\d+)/g, f);',
    ];
    for (const line of offending) expect(handQuotedSql('x.ts', line)).toHaveLength(1);
    const fine = [
      "conn.query('SELECT * FROM t WHERE id = $1', [id]);",
      'db.raw(`now() - make_interval(secs => ?)`, [WINDOW]);',
      'c.query(`CREATE DATABASE ${escapeIdentifier(name)}`);',
      'log(`charged ${n} credits`);',
    ];
    for (const line of fine) expect(handQuotedSql('x.ts', line)).toEqual([]);
  });
});
