/**
 * A scripted language server on stdio for the lifecycle tests: it speaks
 * LSP through vscode-jsonrpc and misbehaves as its scenario says (crash,
 * hang, flood, grow, write garbage). Run with `fakeLspServer(scenario)`,
 * which gives the command line. Its diagnostics: one error per line holding
 * `ERROR`, published with the document's version.
 *
 * Every start appends its pid to `scenario.startLog`, so a test can count
 * starts (or see that none happened).
 */
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
    StreamMessageReader,
    StreamMessageWriter,
    createMessageConnection,
} from "vscode-jsonrpc/node";

export interface FakeLspScenario {
    startLog?: string;
    crashOnInitialize?: boolean;
    /** Never answers initialize (the process stays up). */
    hangOnInitialize?: boolean;
    /** Exits on this request (1-based, after initialize) unless `crashOnceMarker` exists. */
    crashOnRequest?: number;
    /** Created at the first crash: a restarted server then behaves. */
    crashOnceMarker?: string;
    /** Writes non-LSP text to stdout after `initialized`. */
    garbageAfterInitialized?: boolean;
    /** On each didOpen, this many `window/logMessage` notifications before the diagnostics. */
    floodOnOpen?: number;
    /** On didOpen, allocates and touches this many MB (kept until exit). */
    allocateMbOnOpen?: number;
    /** On didOpen, starts a message of this many MB and writes it all. */
    hugeMessageMbOnOpen?: number;
    /** Never publishes diagnostics. */
    silent?: boolean;
    /**
     * Never answers `textDocument/hover`; writes `<marker>.started` when it
     * has the request and `<marker>.cancelled` when the client cancels it.
     */
    hoverMarker?: string;
    /**
     * Starts `tail -f /dev/null` (which also keeps the server up after its
     * stdin closes) and writes its pid to this file.
     */
    childPidFile?: string;
}

const KIT = fileURLToPath(new URL(".", import.meta.url));
/** tsx's loader by path: the server runs in the test's project folder, where `tsx` does not resolve. */
const TSX_LOADER = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;

/** Command and args that run the fake server with `scenario`. */
export function fakeLspServer(scenario: FakeLspScenario): { command: string; args: string[] } {
    return {
        command: process.execPath,
        args: ["--import", TSX_LOADER, `${KIT}fake-lsp-server.ts`, JSON.stringify(scenario)],
    };
}

function serve(scenario: FakeLspScenario): void {
    if (scenario.startLog) appendFileSync(scenario.startLog, `${process.pid}\n`);
    if (scenario.childPidFile) {
        const child = spawn("tail", ["-f", "/dev/null"], { stdio: "ignore" });
        writeFileSync(scenario.childPidFile, String(child.pid));
    }
    const connection = createMessageConnection(
        new StreamMessageReader(process.stdin),
        new StreamMessageWriter(process.stdout)
    );
    const held: Buffer[] = [];
    let requests = 0;
    const crashNow = (): boolean => {
        if (scenario.crashOnceMarker) {
            if (existsSync(scenario.crashOnceMarker)) return false;
            writeFileSync(scenario.crashOnceMarker, "crashed\n");
        }
        return true;
    };

    connection.onRequest("initialize", () => {
        if (scenario.crashOnInitialize) process.exit(3);
        if (scenario.hangOnInitialize) return new Promise(() => undefined);
        return {
            capabilities: { textDocumentSync: 1, documentSymbolProvider: true },
            serverInfo: { name: "fake-lsp-server" },
        };
    });
    connection.onRequest("shutdown", () => null);
    connection.onNotification("exit", () => process.exit(0));
    connection.onNotification("initialized", () => {
        if (scenario.garbageAfterInitialized)
            process.stdout.write("this is not LSP at all\r\n\r\n");
    });
    connection.onRequest("textDocument/hover", (_params, token) => {
        const marker = scenario.hoverMarker;
        if (marker) writeFileSync(`${marker}.started`, "started\n");
        token.onCancellationRequested(() => {
            if (marker) writeFileSync(`${marker}.cancelled`, "cancelled\n");
        });
        return new Promise(() => undefined);
    });
    connection.onRequest("textDocument/documentSymbol", () => {
        requests++;
        if (requests === scenario.crashOnRequest && crashNow()) process.exit(4);
        return [];
    });

    const publish = (uri: string, version: number, text: string): void => {
        if (scenario.silent) return;
        const diagnostics = text.split("\n").flatMap((line, index) =>
            line.includes("ERROR")
                ? [
                      {
                          range: {
                              start: { line: index, character: 0 },
                              end: { line: index, character: line.length },
                          },
                          severity: 1,
                          message: "fake error",
                          source: "fake",
                      },
                  ]
                : []
        );
        void connection.sendNotification("textDocument/publishDiagnostics", {
            uri,
            version,
            diagnostics,
        });
    };
    connection.onNotification(
        "textDocument/didOpen",
        (params: { textDocument: { uri: string; version: number; text: string } }) => {
            const { uri, version, text } = params.textDocument;
            if (scenario.allocateMbOnOpen) {
                const block = Buffer.alloc(scenario.allocateMbOnOpen * 1024 * 1024, 1);
                held.push(block);
            }
            if (scenario.hugeMessageMbOnOpen) {
                const size = scenario.hugeMessageMbOnOpen * 1024 * 1024;
                process.stdout.write(`Content-Length: ${size}\r\n\r\n`);
                process.stdout.write(Buffer.alloc(size, 32));
                return;
            }
            // One write of every message, framed here: the client gets the flood in pipe-sized
            // chunks of hundreds of messages, as from a server flooding it, never one at a time.
            const flood: string[] = [];
            for (let i = 0; i < (scenario.floodOnOpen ?? 0); i++) {
                const body = JSON.stringify({
                    jsonrpc: "2.0",
                    method: "window/logMessage",
                    params: { type: 4, message: `flood ${i}` },
                });
                flood.push(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
            }
            if (flood.length > 0) process.stdout.write(flood.join(""));
            publish(uri, version, text);
        }
    );
    connection.onNotification(
        "textDocument/didChange",
        (params: {
            textDocument: { uri: string; version: number };
            contentChanges: Array<{ text: string }>;
        }) => {
            const text = params.contentChanges.at(-1)?.text ?? "";
            publish(params.textDocument.uri, params.textDocument.version, text);
        }
    );
    connection.listen();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
    serve(JSON.parse(process.argv[2] ?? "{}") as FakeLspScenario);
}
