/**
 * Checks the messages an ACP agent sends against the protocol's published
 * JSON Schema (the one shipped with the SDK version North depends on):
 * every message must be a valid "Agent" message, and where the method is
 * known (a request or notification it sends, a response to a request the
 * client made) its params or result must match that method's definition.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import Ajv2020 from "ajv/dist/2020";
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020";

const require = createRequire(import.meta.url);
const SCHEMA_PATH = require.resolve("@agentclientprotocol/sdk/schema/v1/schema.json");

interface PublishedSchema {
    $defs: Record<string, unknown>;
    anyOf: Array<{ title: string }>;
}

/** What the client asks: the definition its answer (the agent's response) must match. */
const RESPONSE_DEFS: Record<string, string> = {
    initialize: "InitializeResponse",
    authenticate: "AuthenticateResponse",
    logout: "LogoutResponse",
    "session/new": "NewSessionResponse",
    "session/load": "LoadSessionResponse",
    "session/list": "ListSessionsResponse",
    "session/delete": "DeleteSessionResponse",
    "session/resume": "ResumeSessionResponse",
    "session/close": "CloseSessionResponse",
    "session/set_mode": "SetSessionModeResponse",
    "session/set_config_option": "SetSessionConfigOptionResponse",
    "session/prompt": "PromptResponse",
};

/** What the agent may ask of the client, and what it may tell it. */
const AGENT_MESSAGE_DEFS: Record<string, string> = {
    "session/request_permission": "RequestPermissionRequest",
    "fs/read_text_file": "ReadTextFileRequest",
    "fs/write_text_file": "WriteTextFileRequest",
    "terminal/create": "CreateTerminalRequest",
    "terminal/output": "TerminalOutputRequest",
    "terminal/release": "ReleaseTerminalRequest",
    "terminal/wait_for_exit": "WaitForTerminalExitRequest",
    "terminal/kill": "KillTerminalRequest",
    "elicitation/create": "CreateElicitationRequest",
    "session/update": "SessionNotification",
    "elicitation/complete": "CompleteElicitationNotification",
    "$/cancel_request": "CancelRequestNotification",
};

const INTEGER_RANGES: Record<string, [number, number]> = {
    uint16: [0, 0xffff],
    uint32: [0, 0xffffffff],
    uint64: [0, Number.MAX_SAFE_INTEGER],
    int32: [-0x80000000, 0x7fffffff],
    int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

export interface AgentMessageChecker {
    /**
     * The problems with one line the agent wrote ([] when it is a valid
     * message). `requestMethod` names the client request a response answers.
     */
    check(line: string, requestMethod: (id: string | number) => string | undefined): string[];
}

/** The published schema, loaded once, with the formats it names. */
const schema = JSON.parse(readFileSync(SCHEMA_PATH, "utf8")) as PublishedSchema;
const ajv = new Ajv2020({ strict: false, allErrors: false, discriminator: true });
for (const [name, [min, max]] of Object.entries(INTEGER_RANGES)) {
    ajv.addFormat(name, {
        type: "number",
        validate: (n: number) => Number.isInteger(n) && n >= min && n <= max,
    });
}
ajv.addFormat("double", { type: "number", validate: (n: number) => Number.isFinite(n) });
ajv.addFormat("uri", (text: string) => /^[a-z][a-z0-9+.-]*:/i.test(text));
ajv.addSchema({ $id: "acp", $defs: schema.$defs });

function definition(name: string): ValidateFunction {
    const validate = ajv.getSchema(`acp#/$defs/${name}`);
    if (!validate) throw new Error(`no $defs/${name} in the ACP schema`);
    return validate;
}

/** The problems of `value` as the schema's `$defs/<name>` ([] when valid). */
export function schemaProblems(name: string, value: unknown): string[] {
    const validate = definition(name);
    return validate(value) ? [] : [describeErrors(validate.errors)];
}

/** Every value is valid as `$defs/<name>`; the failures name the value's index. */
export function invalidOf(name: string, values: readonly unknown[]): string[] {
    return values.flatMap((value, index) =>
        schemaProblems(name, value).map((problem) => `[${index}] ${problem}`)
    );
}

// The published top level is "Agent | Client | ProtocolLevel": the agent's side is Agent,
// plus protocol-level notifications ($/cancel_request) either side may send.
const agentMessage = ajv.compile({
    $id: "acp-agent-message",
    anyOf: schema.anyOf
        .filter((s) => s.title === "Agent" || s.title === "ProtocolLevel")
        .map(
            (s) => JSON.parse(JSON.stringify(s).replaceAll('"#/$defs/', '"acp#/$defs/')) as unknown
        ),
});

export function createAgentMessageChecker(): AgentMessageChecker {
    const problems = (what: string, validate: ValidateFunction, value: unknown): string[] =>
        validate(value) ? [] : [`${what}: ${describeErrors(validate.errors)}`];

    return {
        check(line, requestMethod) {
            let message: unknown;
            try {
                message = JSON.parse(line);
            } catch {
                return [`not JSON: ${clip(line)}`];
            }
            if (typeof message !== "object" || message === null || Array.isArray(message)) {
                return [`not a JSON-RPC object: ${clip(line)}`];
            }
            const found = problems("not an Agent message", agentMessage, message);
            if (found.length > 0) return [`${found[0]!} in ${clip(line)}`];
            const m = message as {
                id?: string | number | null;
                method?: string;
                params?: unknown;
                result?: unknown;
            };
            if (typeof m.method === "string") {
                const def = AGENT_MESSAGE_DEFS[m.method];
                if (!def) return [`North sent a method the protocol does not define: ${m.method}`];
                return problems(`${m.method} params`, definition(def), m.params).map(
                    (p) => `${p} in ${clip(line)}`
                );
            }
            if ("result" in m) {
                if (m.id === null || m.id === undefined)
                    return [`a result without an id: ${clip(line)}`];
                const method = requestMethod(m.id);
                if (method === undefined)
                    return [`a result for a request never made (id ${String(m.id)})`];
                const def = RESPONSE_DEFS[method];
                if (!def) return [`a result for ${method}, which has no response in the protocol`];
                return problems(`${method} result`, definition(def), m.result).map(
                    (p) => `${p} in ${clip(line)}`
                );
            }
            return [];
        },
    };
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
    if (!errors || errors.length === 0) return "no match";
    const described = errors.map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`.trim());
    return [...new Set(described)].slice(0, 3).join("; ");
}

function clip(text: string): string {
    return text.length > 400 ? `${text.slice(0, 400)}… (${text.length} chars)` : text;
}
