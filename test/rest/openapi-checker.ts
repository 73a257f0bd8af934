// Holds real REST answers to an OpenAPI 3.1 document: the operation is documented, the status is
// one it documents, the content type is one documented for that status, required headers are
// present, and the body validates against the schema (ajv, JSON Schema 2020-12, strict mode, so a
// schema keyword ajv does not know fails too). Collects mismatches instead of throwing, so one
// run reports all of them.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS with a default export
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const DOC_ID = 'https://contract.test/openapi.json';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface MediaType {
  schema?: unknown;
  example?: unknown;
}
interface ResponseObject {
  headers?: Record<string, unknown>;
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId: string;
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, ResponseObject>;
}
export interface OpenApiDoc {
  paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  [key: string]: unknown;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
const essence = (contentType: string | null) => (contentType ?? '').split(';')[0]!.trim().toLowerCase();

export interface CheckedResponse {
  operationId: string;
  status: number;
}

export function openApiChecker(doc: OpenApiDoc) {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  // the document's own keys beside its schemas, and the OpenAPI `example` annotation
  ajv.addVocabulary(['openapi', 'info', 'servers', 'tags', 'security', 'paths', 'components', 'example']);
  ajv.addSchema({ ...doc, $id: DOC_ID });
  const validators = new Map<string, ValidateFunction>();
  const validatorAt = (...parts: string[]) => {
    const ref = `${DOC_ID}#/${pointer(...parts)}`;
    let v = validators.get(ref);
    if (!v) validators.set(ref, (v = ajv.compile({ $ref: ref })));
    return v;
  };

  const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    METHODS.filter((m) => ops[m]).map((method) => ({ path, method, op: ops[method]! })),
  );
  const checked: CheckedResponse[] = [];
  const mismatches: string[] = [];

  return {
    operations,
    checked,
    mismatches,

    /** Checks one real answer; returns the parsed body. */
    check(method: string, url: string, res: { status: number; headers: Headers }, text: string): unknown {
      const { pathname } = new URL(url, 'http://x');
      const at = `${method} ${url.slice(0, 160)} -> ${res.status}`;
      const found = operations.find((o) => o.path === pathname && o.method === method.toLowerCase());
      if (!found) {
        mismatches.push(`${at}: no documented operation`);
        return undefined;
      }
      checked.push({ operationId: found.op.operationId, status: res.status });
      const key = String(res.status) in found.op.responses ? String(res.status) : 'default';
      const documented = found.op.responses[key];
      if (!documented) {
        mismatches.push(`${at}: status not documented for ${found.op.operationId}`);
        return undefined;
      }
      for (const [name, header] of Object.entries(documented.headers ?? {})) {
        if ((header as { required?: boolean }).required && !res.headers.has(name)) mismatches.push(`${at}: documented header ${name} missing`);
      }
      const type = essence(res.headers.get('content-type'));
      if (!documented.content?.[type]) {
        mismatches.push(`${at}: content type ${type || '(none)'} not documented`);
        return undefined;
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        mismatches.push(`${at}: body is not JSON: ${text.slice(0, 120)}`);
        return undefined;
      }
      const validate = validatorAt('paths', found.path, found.method, 'responses', key, 'content', type, 'schema');
      if (!validate(body)) mismatches.push(`${at}: ${ajv.errorsText(validate.errors)}`);
      return body;
    },

    /** Every example of the document against its own schema. */
    checkExamples(): string[] {
      const wrong: string[] = [];
      for (const { path, method, op } of operations) {
        const media: [string[], MediaType][] = [
          ...Object.entries(op.requestBody?.content ?? {}).map(([t, m]): [string[], MediaType] => [['requestBody', 'content', t], m]),
          ...Object.entries(op.responses).flatMap(([s, r]) => Object.entries(r.content ?? {}).map(([t, m]): [string[], MediaType] => [['responses', s, 'content', t], m])),
        ];
        for (const [where, m] of media) {
          if (m.example === undefined) continue;
          const validate = validatorAt('paths', path, method, ...where, 'schema');
          if (!validate(m.example)) wrong.push(`${op.operationId} ${where.join('.')}: ${ajv.errorsText(validate.errors)}`);
        }
      }
      return wrong;
    },

    /** Documented (operationId, status) pairs no checked answer had. */
    uncovered(): string[] {
      const seen = new Set(checked.map((c) => `${c.operationId} ${c.status}`));
      return operations.flatMap(({ op }) => Object.keys(op.responses).map((s) => `${op.operationId} ${s}`)).filter((k) => !seen.has(k));
    },
  };
}
