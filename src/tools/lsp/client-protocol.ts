/**
 * North's side of the protocol as a client: the capabilities it declares
 * (only what it uses), its answers to what a server asks of its client, and
 * vscode-jsonrpc's reader with a guard in front of the connection's queue.
 */
import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import {
    type DataCallback,
    type Disposable,
    type Message,
    ResponseError,
    StreamMessageReader,
} from "vscode-jsonrpc/node";
import type {
    ClientCapabilities,
    ConfigurationParams,
    Registration,
    RegistrationParams,
    UnregistrationParams,
} from "vscode-languageserver-protocol";

const METHOD_NOT_FOUND = -32601;

/** Notifications a flood may lose: progress, logs, telemetry. */
const CHATTER = new Set([
    "$/progress",
    "window/logMessage",
    "telemetry/event",
    "$/logTrace",
    "window/showMessage",
]);

export function isChatter(method: string): boolean {
    return CHATTER.has(method);
}

/** What North declares: only what it uses (rename is prepared, edits applied by North). */
export const CLIENT_CAPABILITIES: ClientCapabilities = {
    general: { positionEncodings: ["utf-16"] },
    window: { workDoneProgress: true },
    workspace: {
        configuration: true,
        workspaceFolders: true,
        applyEdit: false,
        workspaceEdit: {
            documentChanges: true,
            resourceOperations: ["create", "rename", "delete"],
        },
        symbol: { dynamicRegistration: false },
        diagnostics: { refreshSupport: true },
    },
    textDocument: {
        synchronization: { dynamicRegistration: false, didSave: false, willSave: false },
        publishDiagnostics: { relatedInformation: false, versionSupport: true },
        diagnostic: { dynamicRegistration: true, relatedDocumentSupport: true },
        definition: { linkSupport: false },
        references: {},
        hover: { contentFormat: ["plaintext", "markdown"] },
        documentSymbol: { hierarchicalDocumentSymbolSupport: true },
        rename: { prepareSupport: true },
    },
};

/** vscode-jsonrpc's reader, with each message shown to `guard` first (false drops it). */
export class GuardedReader extends StreamMessageReader {
    constructor(
        readable: NodeJS.ReadableStream,
        private readonly guard: (message: Message) => boolean
    ) {
        super(readable);
    }

    override listen(callback: DataCallback): Disposable {
        return super.listen((message) => {
            if (this.guard(message)) callback(message);
        });
    }
}

/** Looks `section` ("python.analysis") up in the configured settings, else null. */
function settingFor(
    settings: Record<string, unknown> | undefined,
    section: string | undefined
): unknown {
    if (!settings) return null;
    if (!section) return settings;
    if (section in settings) return settings[section];
    let value: unknown = settings;
    for (const part of section.split(".")) {
        if (typeof value !== "object" || value === null || !(part in value)) return null;
        value = (value as Record<string, unknown>)[part];
    }
    return value;
}

export interface ServerRequestContext {
    root: string;
    settings?: Record<string, unknown>;
    registered(registration: Registration): void;
    unregistered(id: string): void;
    /** `workspace/diagnostic/refresh`: pull the open documents again. */
    refresh(): void;
}

/** North's answer to a request from the server (an error for what it does not handle). */
export function answerServerRequest(
    method: string,
    params: unknown,
    client: ServerRequestContext
): unknown {
    switch (method) {
        case "workspace/configuration":
            return (params as ConfigurationParams).items.map((item) =>
                settingFor(client.settings, item.section)
            );
        case "client/registerCapability":
            for (const registration of (params as RegistrationParams).registrations) {
                client.registered(registration);
            }
            return null;
        case "client/unregisterCapability":
            for (const gone of (params as UnregistrationParams).unregisterations) {
                client.unregistered(gone.id);
            }
            return null;
        case "workspace/diagnostic/refresh":
            client.refresh();
            return null;
        case "window/workDoneProgress/create":
        case "window/showMessageRequest":
            return null;
        case "workspace/workspaceFolders":
            return [{ uri: pathToFileURL(client.root).href, name: basename(client.root) }];
        case "workspace/applyEdit":
            // Writes go through North's review, never straight from a server.
            return { applied: false, failureReason: "North applies edits itself" };
        default:
            return new ResponseError(METHOD_NOT_FOUND, `North does not handle ${method}`);
    }
}
