// Requests Node's HTTP parser refuses before any handler sees them (headers over maxHeaderSize,
// a malformed request line or chunk, a request that takes too long) still answer in the v1
// envelope, then close the connection: after a parse error the byte stream cannot be trusted.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

const REFUSALS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request header fields too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request timeout'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Chunk extensions too large'],
};

export function clientErrorResponse(code: string | undefined): string {
  const [status, message] = REFUSALS[code ?? ''] ?? [400, 'Bad request: the HTTP request could not be parsed'];
  const body = JSON.stringify({ success: false, message, data: null });
  return [
    `HTTP/1.1 ${status} ${message}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** Replaces Node's bare default answer to client errors with the envelope. */
export function answerClientErrorsInEnvelope(server: Server): void {
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
    // A reset or a half-written response: nothing can be answered any more.
    if (err.code === 'ECONNRESET' || !socket.writable || (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    socket.end(clientErrorResponse(err.code));
  });
}
