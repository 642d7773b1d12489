/**
 * A client generated from the OpenAPI document by a common generator (openapi-typescript, default
 * options) type-checks the README's own requests: the bodies the README sends (its engine calls,
 * which are the bodies of the routes its method table names, and the curl request `npm start`
 * prints) are written against the generated `paths` types and compiled with `tsc`. The same
 * program also requires every JSON request and response body of the document to be typed (not
 * `unknown`, not an empty object), so it fails when the document stops typing one.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { createOpenApiDocument } from '../../src/http/openapi.js';

const ROOT = new URL('../../', import.meta.url);

/** Engine method → the route whose request body its argument `argument` is. */
const ROUTE_OF_METHOD: Readonly<Record<string, { path: string; method: 'post' | 'put' | 'patch'; argument: number }>> = {
  createTransaction: { path: '/transactions', method: 'post', argument: 0 },
  createTransactionEvent: { path: '/events/transaction', method: 'post', argument: 0 },
  createUser: { path: '/consumer/users', method: 'post', argument: 0 },
  createConsumerUserEvent: { path: '/events/consumer/user', method: 'post', argument: 0 },
  createBusinessUserEvent: { path: '/events/business/user', method: 'post', argument: 0 },
  createUserComment: { path: '/users/{userId}/comments', method: 'post', argument: 1 },
  createCaseComment: { path: '/cases/{caseId}/comments', method: 'post', argument: 1 },
  createAlertComment: { path: '/alerts/{alertId}/comments', method: 'post', argument: 1 },
  createRuleInstance: { path: '/rule-instances', method: 'post', argument: 0 },
  updateRuleInstance: { path: '/rule-instances/{ruleInstanceId}', method: 'post', argument: 1 },
  putList: { path: '/lists/{listId}', method: 'put', argument: 1 },
  createUpload: { path: '/pre-signed-url', method: 'post', argument: 0 },
  changeCaseStatus: { path: '/cases/{caseId}/statuses', method: 'post', argument: 1 },
  changeAlertStatus: { path: '/alerts/{alertId}/statuses', method: 'post', argument: 1 },
  updateCase: { path: '/cases/{caseId}', method: 'patch', argument: 1 },
  updateAlert: { path: '/alerts/{alertId}', method: 'patch', argument: 1 },
};

interface ExampleRequest {
  readonly path: string;
  readonly method: 'post' | 'put' | 'patch';
  /** The body as TypeScript source (an object literal). */
  readonly body: string;
  /** A property of the body holding a string or number literal, to be replaced by a wrong value. */
  readonly scalarKey: string;
  readonly source: string;
}

/** The object literal passed to `engine.<method>(…)` in every ts/js code block of the README. */
function readmeRequests(): ExampleRequest[] {
  const readme = readFileSync(new URL('README.md', ROOT), 'utf8');
  const blocks = [...readme.matchAll(/```(?:ts|js)\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  const requests: ExampleRequest[] = [];
  blocks.forEach((block, index) => {
    const file = ts.createSourceFile(`readme-${index}.ts`, block, ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.expression.getText(file) === 'engine') {
        const route = ROUTE_OF_METHOD[node.expression.name.text];
        const argument = route === undefined ? undefined : node.arguments[route.argument];
        if (route !== undefined && argument !== undefined && ts.isObjectLiteralExpression(argument)) {
          requests.push({
            path: route.path,
            method: route.method,
            body: argument.getText(file),
            scalarKey: scalarKeyOf(argument, file),
            source: `README: engine.${node.expression.name.text}`,
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  });
  return requests;
}

function scalarKeyOf(literal: ts.ObjectLiteralExpression, file: ts.SourceFile): string {
  for (const property of literal.properties) {
    if (ts.isPropertyAssignment(property) && (ts.isStringLiteral(property.initializer) || ts.isNumericLiteral(property.initializer)))
      return property.name.getText(file);
  }
  throw new Error(`no string or number property in ${literal.getText(file)}`);
}

/** The body of the curl request `npm start` prints (the README's "two curl commands to try"). */
function startCurlRequest(): ExampleRequest {
  const serve = readFileSync(new URL('src/cli/serve.ts', ROOT), 'utf8');
  const match = /-X POST [^`]*\/transactions[\s\S]*?-d '(\{.*\})'\\n/.exec(serve);
  if (match?.[1] === undefined) throw new Error('the curl request of txmon serve was not found');
  // What the shell makes of the command substitutions that give each run its own id and time.
  const body = match[1].replace(/'\$\(date \+%s%N\)'/, '1795873218019000000').replace(/'\$\(date \+%s000\)'/, '1735689600000');
  JSON.parse(body);
  return { path: '/transactions', method: 'post', body, scalarKey: '"type"', source: 'npm start: curl POST /transactions' };
}

/** The program `tsc` checks against the generated client. */
function checkProgram(requests: readonly ExampleRequest[]): string {
  const lines = [
    "import type { components, paths } from './client.js';",
    '',
    "type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';",
    'type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;',
    "type JsonBody<P extends keyof paths, M extends Method> = Operation<P, M> extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;",
    "type JsonResponse<P extends keyof paths, M extends Method, S extends number> = Operation<P, M> extends { responses: { [K in S]: { content: { 'application/json': infer R } } } } ? R : never;",
    '/** Whether a body is typed: not `unknown`, not missing, not an object that admits no property. */',
    'type IsTyped<T> = unknown extends T ? false : [T] extends [never] ? false : [T] extends [Record<string, never>] ? false : true;',
    '',
    '// Every JSON request and response body of the document is typed.',
    'type UntypedBodies = {',
    '  [P in keyof paths]: {',
    '    [M in Method]: Operation<P, M> extends { requestBody?: infer Q; responses: infer R }',
    `      ? | (Q extends { content: { 'application/json': infer B } } ? (IsTyped<B> extends true ? never : \`\${M} \${P} request\`) : never)`,
    `        | { [S in keyof R]: R[S] extends { content: { 'application/json': infer B } } ? (IsTyped<B> extends true ? never : \`\${M} \${P} \${S & number}\`) : never }[keyof R]`,
    '      : never;',
    '  }[Method];',
    '}[keyof paths];',
    'type NoneOf<T extends never> = T;',
    'export type EveryBodyTyped = NoneOf<UntypedBodies>;',
    '',
    '// The README reads these fields of a monitoring result and of an error.',
    "declare const result: JsonResponse<'/transactions', 'post', 201>;",
    "export const status: 'ALLOW' | 'FLAG' | 'SUSPEND' | 'BLOCK' = result.status;",
    'export const hitRuleIds: (string | undefined)[] = result.hitRules.map((rule) => rule.ruleId);',
    "declare const problem: components['schemas']['Problem'];",
    'export const problemPaths: string[] | undefined = problem.errors?.map((detail) => detail.path);',
    '',
  ];
  requests.forEach((request, index) => {
    lines.push(`// ${request.source} → ${request.method.toUpperCase()} ${request.path}`);
    lines.push(`export const request${index}: JsonBody<'${request.path}', '${request.method}'> = ${request.body};`);
    lines.push(`export const wrong${index}: JsonBody<'${request.path}', '${request.method}'> = {`);
    lines.push(`  ...${request.body},`);
    lines.push('  // @ts-expect-error a wrong type in a typed field is refused');
    lines.push(`  ${request.scalarKey}: Symbol('wrong'),`);
    lines.push('};');
    lines.push('');
  });
  return lines.join('\n');
}

/**
 * Generates the client of `document` into `folder`, compiles the check program there; returns tsc's
 * messages and the bodies the client leaves untyped (the members of `UntypedBodies`).
 */
async function typeCheckAgainst(document: Record<string, unknown>, program: string, folder: string): Promise<{ messages: string[]; untyped: string[] }> {
  const client = astToString(await openapiTS(document as unknown as OpenAPI3));
  writeFileSync(join(folder, 'client.ts'), client);
  writeFileSync(join(folder, 'check.ts'), program);
  const compiled = ts.createProgram([join(folder, 'check.ts')], {
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts'],
    types: [],
    noEmit: true,
  });
  const messages = ts.getPreEmitDiagnostics(compiled).map((diagnostic) => {
    const where =
      diagnostic.file === undefined
        ? ''
        : `${diagnostic.file.fileName.slice(folder.length + 1)}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}: `;
    return `${where}${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
  const checker = compiled.getTypeChecker();
  const alias = compiled
    .getSourceFile(join(folder, 'check.ts'))
    ?.statements.find((statement) => ts.isTypeAliasDeclaration(statement) && statement.name.text === 'UntypedBodies');
  if (alias === undefined) throw new Error('UntypedBodies not found');
  const type = checker.getTypeAtLocation((alias as ts.TypeAliasDeclaration).name);
  const members = type.isUnion() ? type.types : [type];
  const untyped = members.filter((member) => member.isStringLiteral()).map((member) => (member as ts.StringLiteralType).value);
  return { messages, untyped: untyped.sort() };
}

describe('a client generated from the OpenAPI document', () => {
  const folders: string[] = [];
  const newFolder = () => {
    const folder = mkdtempSync(join(tmpdir(), 'txmon-openapi-client-'));
    folders.push(folder);
    return folder;
  };
  afterAll(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  const requests = [...readmeRequests(), startCurlRequest()];

  it("finds the README's requests", () => {
    expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'post /rule-instances',
      'post /rule-instances',
      'post /transactions',
      'post /transactions',
      'post /rule-instances',
      'post /transactions',
    ]);
  });

  it("type-checks the README's requests and types every JSON body of the document", async () => {
    const { messages, untyped } = await typeCheckAgainst(createOpenApiDocument(), checkProgram(requests), newFolder());
    expect(untyped).toEqual([]);
    expect(messages).toEqual([]);
  });

  it('fails when the document stops typing a body the README sends or reads', async () => {
    const document = createOpenApiDocument();
    /** Replaces the schema of the media type at `pointer` (keys from the document's root). */
    const setSchema = (pointer: readonly string[], schema: unknown): void => {
      let node = document;
      for (const key of pointer) node = node[key] as Record<string, unknown>;
      node['schema'] = schema;
    };
    setSchema(['paths', '/rule-instances', 'post', 'requestBody', 'content', 'application/json'], {});
    setSchema(['paths', '/transactions', 'post', 'responses', '201', 'content', 'application/json'], { type: 'object' });
    const { messages, untyped } = await typeCheckAgainst(document, checkProgram(requests), newFolder());
    expect(untyped).toEqual(['post /rule-instances request', 'post /transactions 201']);
    expect(messages).toContainEqual(expect.stringMatching(/does not satisfy the constraint 'never'/));
    // The README's three rule-instance bodies are no longer checked, and its reading of the result fails.
    expect(messages.filter((message) => message.includes("Unused '@ts-expect-error' directive"))).toHaveLength(3);
    expect(messages).toContainEqual(expect.stringMatching(/'result\.hitRules' is possibly 'undefined'/));
  });
});
