/**
 * What an MCP server may ask of the user through North (elicitation forms
 * and sampling requests), in shapes the front-ends can draw without the SDK:
 * the form's fields with their validation, and a sampling request reduced to
 * text messages with a bounded token count.
 */

/** A server asking the user to fill in a form (only form mode is advertised). */
export interface McpElicitation {
    server: string;
    message: string;
    /** The JSON Schema of the answer: a flat object of primitive fields. */
    requestedSchema: Record<string, unknown>;
}

export type McpElicitationAnswer =
    | { action: "accept"; content: Record<string, string | number | boolean> }
    | { action: "decline" }
    | { action: "cancel" };

export type McpFormFieldKind = "string" | "number" | "integer" | "boolean" | "enum";

export interface McpFormField {
    name: string;
    /** The schema's title, else the property name. */
    label: string;
    description?: string;
    kind: McpFormFieldKind;
    required: boolean;
    /** Enum values sent back, in order. */
    options?: string[];
    /** What each option is called on screen (titled enums), same order. */
    optionLabels?: string[];
    default?: string | number | boolean;
    minimum?: number;
    maximum?: number;
    minLength?: number;
    maxLength?: number;
    /** "email", "uri", "date", "date-time". */
    format?: string;
}

/** What the user entered: text for text and number fields, a flag, or an option's index. */
export type McpFormValue = string | boolean | number;

const isRecord = (value: unknown): value is Record<string, unknown> =>
    typeof value === "object" && value !== null && !Array.isArray(value);

const numberOr = (value: unknown): number | undefined =>
    typeof value === "number" && Number.isFinite(value) ? value : undefined;

/** The form a flat requested schema describes, or why North cannot show it. */
export function formFields(
    schema: Record<string, unknown>
): { ok: true; fields: McpFormField[] } | { ok: false; error: string } {
    const properties = schema.properties;
    if (!isRecord(properties)) return { ok: true, fields: [] };
    const required = new Set(
        Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : []
    );
    const fields: McpFormField[] = [];
    for (const [name, raw] of Object.entries(properties)) {
        if (!isRecord(raw)) return { ok: false, error: `field "${name}" has no schema` };
        const base = {
            name,
            label: typeof raw.title === "string" && raw.title ? raw.title : name,
            ...(typeof raw.description === "string" ? { description: raw.description } : {}),
            required: required.has(name),
        };
        const titled = Array.isArray(raw.oneOf) ? raw.oneOf.filter(isRecord) : undefined;
        if (raw.type === "string" && (Array.isArray(raw.enum) || titled)) {
            const options = titled
                ? titled.map((o) => String(o.const))
                : (raw.enum as unknown[]).map(String);
            const names = Array.isArray(raw.enumNames) ? raw.enumNames.map(String) : undefined;
            const optionLabels = titled ? titled.map((o) => String(o.title ?? o.const)) : names;
            if (options.length === 0) return { ok: false, error: `field "${name}" has no options` };
            fields.push({
                ...base,
                kind: "enum",
                options,
                ...(optionLabels ? { optionLabels } : {}),
                ...(typeof raw.default === "string" && options.includes(raw.default)
                    ? { default: raw.default }
                    : {}),
            });
        } else if (raw.type === "string") {
            fields.push({
                ...base,
                kind: "string",
                ...(typeof raw.default === "string" ? { default: raw.default } : {}),
                ...(numberOr(raw.minLength) !== undefined
                    ? { minLength: numberOr(raw.minLength) }
                    : {}),
                ...(numberOr(raw.maxLength) !== undefined
                    ? { maxLength: numberOr(raw.maxLength) }
                    : {}),
                ...(typeof raw.format === "string" ? { format: raw.format } : {}),
            });
        } else if (raw.type === "number" || raw.type === "integer") {
            fields.push({
                ...base,
                kind: raw.type,
                ...(numberOr(raw.default) !== undefined ? { default: numberOr(raw.default) } : {}),
                ...(numberOr(raw.minimum) !== undefined ? { minimum: numberOr(raw.minimum) } : {}),
                ...(numberOr(raw.maximum) !== undefined ? { maximum: numberOr(raw.maximum) } : {}),
            });
        } else if (raw.type === "boolean") {
            fields.push({
                ...base,
                kind: "boolean",
                ...(typeof raw.default === "boolean" ? { default: raw.default } : {}),
            });
        } else {
            return {
                ok: false,
                error: `field "${name}" is of type ${JSON.stringify(raw.type ?? "unknown")}; North's form takes only text, numbers, yes/no and single choices`,
            };
        }
    }
    return { ok: true, fields };
}

/** The value a field starts with: its default, else empty (unset choice: -1). */
export function initialValue(field: McpFormField): McpFormValue {
    switch (field.kind) {
        case "boolean":
            return field.default === true;
        case "enum":
            return field.default === undefined
                ? -1
                : (field.options ?? []).indexOf(String(field.default));
        case "number":
        case "integer":
            return field.default === undefined ? "" : String(field.default);
        case "string":
            return typeof field.default === "string" ? field.default : "";
    }
}

const FORMAT_CHECKS: Record<string, RegExp> = {
    email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
    uri: /^[a-z][a-z0-9+.-]*:\S+$/i,
    date: /^\d{4}-\d{2}-\d{2}$/,
    "date-time": /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/,
};

/** Why one field's value is not acceptable, or its value to send (undefined: left out). */
function checkField(
    field: McpFormField,
    value: McpFormValue | undefined
): { error: string } | { value: string | number | boolean | undefined } {
    if (field.kind === "boolean") return { value: value === true };
    if (field.kind === "enum") {
        const index = typeof value === "number" ? value : -1;
        const chosen = field.options?.[index];
        if (chosen === undefined)
            return field.required ? { error: "choose one" } : { value: undefined };
        return { value: chosen };
    }
    const text = typeof value === "string" ? value.trim() : "";
    if (text === "") return field.required ? { error: "required" } : { value: undefined };
    if (field.kind === "string") {
        const raw = typeof value === "string" ? value : "";
        if (field.minLength !== undefined && raw.length < field.minLength)
            return { error: `at least ${field.minLength} characters` };
        if (field.maxLength !== undefined && raw.length > field.maxLength)
            return { error: `at most ${field.maxLength} characters` };
        const check = field.format ? FORMAT_CHECKS[field.format] : undefined;
        if (check && !check.test(raw)) return { error: `not a valid ${field.format}` };
        return { value: raw };
    }
    const number = Number(text);
    if (!Number.isFinite(number)) return { error: "not a number" };
    if (field.kind === "integer" && !Number.isInteger(number)) return { error: "a whole number" };
    if (field.minimum !== undefined && number < field.minimum)
        return { error: `at least ${field.minimum}` };
    if (field.maximum !== undefined && number > field.maximum)
        return { error: `at most ${field.maximum}` };
    return { value: number };
}

/** The answer to send, or the first field that is wrong and why. */
export function validateForm(
    fields: readonly McpFormField[],
    values: Readonly<Record<string, McpFormValue>>
):
    | { ok: true; content: Record<string, string | number | boolean> }
    | { ok: false; field: string; error: string } {
    const content: Record<string, string | number | boolean> = {};
    for (const field of fields) {
        const checked = checkField(field, values[field.name]);
        if ("error" in checked) return { ok: false, field: field.name, error: checked.error };
        if (checked.value !== undefined) content[field.name] = checked.value;
    }
    return { ok: true, content };
}

/** Tokens a sampling request may ask for at most; a larger request is cut to this. */
export const MAX_SAMPLING_TOKENS = 4096;

export interface McpSamplingMessage {
    role: "user" | "assistant";
    text: string;
}

/** A server asking North to run one model request for it. */
export interface McpSamplingRequest {
    server: string;
    systemPrompt?: string;
    messages: McpSamplingMessage[];
    /** What will be allowed: the server's figure, capped. */
    maxTokens: number;
    /** What the server asked for, when more than `maxTokens`. */
    requestedMaxTokens?: number;
}

export interface McpSamplingAnswer {
    text: string;
    /** The model's id as North names it. */
    model: string;
    stopReason: "endTurn" | "maxTokens" | "refusal";
}

/** The server's `sampling/createMessage` params as a text-only request, or why not. */
export function samplingRequestOf(
    server: string,
    params: { messages: unknown[]; systemPrompt?: string; maxTokens: number }
): { ok: true; request: McpSamplingRequest } | { ok: false; error: string } {
    if (params.messages.length === 0)
        return { ok: false, error: "the sampling request has no messages" };
    const messages: McpSamplingMessage[] = [];
    for (const [at, message] of params.messages.entries()) {
        if (!isRecord(message)) return { ok: false, error: `message ${at + 1} is not an object` };
        const blocks = Array.isArray(message.content) ? message.content : [message.content];
        const texts: string[] = [];
        for (const block of blocks) {
            if (!isRecord(block) || block.type !== "text" || typeof block.text !== "string") {
                const type = isRecord(block) ? String(block.type) : typeof block;
                return {
                    ok: false,
                    error: `message ${at + 1} holds ${type} content; North samples text only`,
                };
            }
            texts.push(block.text);
        }
        const role = message.role === "assistant" ? "assistant" : "user";
        messages.push({ role, text: texts.join("\n") });
    }
    if (params.maxTokens < 1)
        return { ok: false, error: `maxTokens must be at least 1 (got ${params.maxTokens})` };
    const maxTokens = Math.min(params.maxTokens, MAX_SAMPLING_TOKENS);
    return {
        ok: true,
        request: {
            server,
            ...(params.systemPrompt ? { systemPrompt: params.systemPrompt } : {}),
            messages,
            maxTokens,
            ...(params.maxTokens > maxTokens ? { requestedMaxTokens: params.maxTokens } : {}),
        },
    };
}
