// Refuses a GraphQL operation whose variables or string literals hold U+0000 (src/domain/nul-character.ts)
// with BAD_REQUEST naming the place, before anything executes: PostgreSQL cannot store it, and
// without this the write failed in the database as INTERNAL.
import { Kind, visit, type ArgumentNode, type ASTNode, type ObjectFieldNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { badRequest } from '../domain/errors.js';
import { findNulCharacter, NUL_MESSAGE } from '../domain/nul-character.js';
import { maskError } from '../schema/errors.js';

/** The argument (and input fields) a string literal holding U+0000 stands in, or null. */
function literalWithNul(document: ASTNode): string | null {
  let found: string | null = null;
  const names: string[] = [];
  visit(document, {
    enter(node) {
      if (found) return false;
      if (node.kind === Kind.ARGUMENT || node.kind === Kind.OBJECT_FIELD) names.push((node as ArgumentNode | ObjectFieldNode).name.value);
      if (node.kind === Kind.STRING && node.value.includes('\u0000')) found = names.join('.') || 'query';
      return undefined;
    },
    leave(node) {
      if (node.kind === Kind.ARGUMENT || node.kind === Kind.OBJECT_FIELD) names.pop();
    },
  });
  return found;
}

/** The refusal of an operation with U+0000 in a string input, or null. */
export function nulRefusal(args: { variableValues?: unknown; document: ASTNode }): { errors: never[] } | null {
  const field = findNulCharacter(args.variableValues ?? {}, '') ?? literalWithNul(args.document);
  return field ? { errors: [maskError(badRequest([{ field, code: 'INVALID_STRING', message: `${field} ${NUL_MESSAGE}` }]), '') as never] } : null;
}

export function useNulRefusal(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const refused = nulRefusal(args);
      if (refused) setResultAndStopExecution(refused);
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const refused = nulRefusal(args);
      if (refused) setResultAndStopExecution(refused);
    },
  };
}
