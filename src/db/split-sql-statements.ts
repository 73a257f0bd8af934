// A migration script cut into its statements, the way PostgreSQL's own lexer reads them: a `;`
// ends a statement only outside quotes ('...', E'...', "..."), dollar quotes ($$...$$, $tag$...$tag$)
// and comments (-- to the end of the line, /* ... */ nested). The runner needs it for migrations
// that run outside a transaction (each statement is sent alone: CREATE INDEX CONCURRENTLY refuses
// to run in the implicit transaction of a multi-statement query) and the migration lint for
// reading each statement apart.

export interface SqlStatement {
  /** the statement as written, comments included, without its `;` */
  text: string;
  /** the same with comments removed and whitespace runs made one space: what the lint reads */
  code: string;
}

export function splitSqlStatements(sql: string): SqlStatement[] {
  const out: SqlStatement[] = [];
  let start = 0;
  let code = '';
  let i = 0;
  const flush = (end: number) => {
    const text = sql.slice(start, end).trim();
    const c = code.replace(/\s+/g, ' ').trim();
    if (c) out.push({ text, code: c });
    code = '';
  };
  while (i < sql.length) {
    const ch = sql[i]!;
    const next = sql[i + 1];
    if (ch === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end;
      code += ' ';
      continue;
    }
    if (ch === '/' && next === '*') {
      let depth = 1;
      i += 2;
      while (i < sql.length && depth > 0) {
        if (sql[i] === '/' && sql[i + 1] === '*') (depth++, (i += 2));
        else if (sql[i] === '*' && sql[i + 1] === '/') (depth--, (i += 2));
        else i++;
      }
      code += ' ';
      continue;
    }
    if (ch === "'" || ch === '"') {
      // E'...' strings take backslash escapes; a doubled quote is the quote itself in both kinds
      const escapes = ch === "'" && /[eE]/.test(sql[i - 1] ?? '') && !/[\w$]/.test(sql[i - 2] ?? '');
      let j = i + 1;
      while (j < sql.length) {
        if (escapes && sql[j] === '\\') j += 2;
        else if (sql[j] === ch && sql[j + 1] === ch) j += 2;
        else if (sql[j] === ch) break;
        else j++;
      }
      code += sql.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (ch === '$') {
      // a dollar quote's tag is an identifier that does not start with a digit ($1 is a parameter)
      const tag = /^\$(?:[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)?\$/.exec(sql.slice(i));
      if (tag && !/[\w$]/.test(sql[i - 1] ?? '')) {
        const end = sql.indexOf(tag[0], i + tag[0].length);
        const stop = end === -1 ? sql.length : end + tag[0].length;
        code += sql.slice(i, stop);
        i = stop;
        continue;
      }
    }
    if (ch === ';') {
      flush(i);
      start = i + 1;
      i++;
      continue;
    }
    code += ch;
    i++;
  }
  flush(sql.length);
  return out;
}
