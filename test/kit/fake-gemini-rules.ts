/**
 * What Gemini's `generateContent` checks in a request body before it answers
 * 400 INVALID_ARGUMENT: the fake runs these on every request, so a body the
 * real API would refuse fails the test that sent it.
 */

/** Google's documented stand-in signature for calls the model did not produce. */
export const FOREIGN_CALL_SIGNATURE = "skip_thought_signature_validator";

/** Image types the API reads inline. */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"]);
/** The API's limit on a whole request carrying inline data. */
export const MAX_REQUEST_BYTES = 20 * 1024 * 1024;
const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;
const PART_DATA = ["text", "inlineData", "functionCall", "functionResponse"] as const;

type Json = Record<string, unknown>;

export interface RuleContext {
    model: string;
    /** Signatures this fake issued; a replayed one must be exactly one of them. */
    issuedSignatures: Set<string>;
}

/** The first rule the body breaks, as the API's message; undefined when it passes. */
export function geminiBodyProblem(body: unknown, ctx: RuleContext): string | undefined {
    if (!isRecord(body)) return "Invalid JSON payload received.";
    const contents = body["contents"];
    if (!Array.isArray(contents) || contents.length === 0) {
        return "* GenerateContentRequest.contents: contents is not specified";
    }
    return (
        systemProblem(body["systemInstruction"]) ??
        toolsProblem(body["tools"], ctx.model) ??
        configProblem(body["generationConfig"], ctx.model) ??
        contentsProblem(contents, ctx)
    );
}

function systemProblem(system: unknown): string | undefined {
    if (system === undefined) return undefined;
    if (!isRecord(system) || !Array.isArray(system["parts"]) || system["parts"].length === 0) {
        return "* GenerateContentRequest.system_instruction.parts: contents.parts must not be empty.";
    }
    if (system["role"] !== undefined && system["role"] !== "user" && system["role"] !== "system") {
        return `* GenerateContentRequest.system_instruction.role: invalid role ${String(system["role"])}`;
    }
    for (const part of system["parts"]) {
        if (!isRecord(part) || typeof part["text"] !== "string") {
            return "* GenerateContentRequest.system_instruction.parts: only text parts are allowed";
        }
    }
    return undefined;
}

/** The fields of a Tool this fake knows; any other is an unknown name, as the API's JSON parser says. */
const TOOL_FIELDS = new Set(["functionDeclarations", "googleSearch"]);

function toolsProblem(tools: unknown, model: string): string | undefined {
    if (tools === undefined) return undefined;
    if (!Array.isArray(tools)) return "* GenerateContentRequest.tools: must be a list";
    let functions = false;
    let search = false;
    for (const [t, tool] of tools.entries()) {
        if (!isRecord(tool)) return `* GenerateContentRequest.tools[${t}]: must be an object`;
        for (const field of Object.keys(tool)) {
            if (!TOOL_FIELDS.has(field)) {
                return `Invalid JSON payload received. Unknown name "${field}" at 'tools[${t}]': Cannot find field.`;
            }
        }
        if (tool["googleSearch"] !== undefined) {
            // Google Search grounding takes an empty object (or only a time range filter).
            const options = tool["googleSearch"];
            const extra = isRecord(options)
                ? Object.keys(options).find((k) => k !== "timeRangeFilter")
                : "googleSearch";
            if (extra !== undefined) {
                return `Invalid JSON payload received. Unknown name "${extra}" at 'tools[${t}].google_search': Cannot find field.`;
            }
            search = true;
        }
        const declarations = tool["functionDeclarations"];
        if (declarations === undefined) continue;
        if (!Array.isArray(declarations)) {
            return `* GenerateContentRequest.tools[${t}].function_declarations: must be a list`;
        }
        functions = true;
        for (const [i, declaration] of declarations.entries()) {
            const where = `* GenerateContentRequest.tools[0].function_declarations[${i}]`;
            if (!isRecord(declaration)) return `${where}: must be an object`;
            const name = declaration["name"];
            if (typeof name !== "string" || !FUNCTION_NAME.test(name)) {
                return `${where}.name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.`;
            }
            if (
                declaration["parameters"] !== undefined &&
                declaration["parametersJsonSchema"] !== undefined
            ) {
                return `${where}: parameters and parameters_json_schema are mutually exclusive`;
            }
            const schema = declaration["parametersJsonSchema"];
            if (schema !== undefined && (!isRecord(schema) || schema["type"] !== "object")) {
                return `${where}.parameters_json_schema: the schema must describe an object`;
            }
            if (isRecord(schema) && "$schema" in schema) {
                return `${where}.parameters_json_schema: unsupported keyword $schema`;
            }
        }
    }
    // Built-in tools next to function declarations: Gemini 3 models only.
    if (search && functions && !usesLevels(model)) {
        return "Tool use with function calling is unsupported together with Google Search for this model.";
    }
    return undefined;
}

function configProblem(config: unknown, model: string): string | undefined {
    if (config === undefined) return undefined;
    if (!isRecord(config)) return "* GenerateContentRequest.generation_config: must be an object";
    const max = config["maxOutputTokens"];
    if (max !== undefined && (!Number.isInteger(max) || (max as number) < 1)) {
        return "* GenerateContentRequest.generation_config.max_output_tokens: must be a positive integer";
    }
    const thinking = config["thinkingConfig"];
    if (!isRecord(thinking)) return undefined;
    const level = thinking["thinkingLevel"];
    const budget = thinking["thinkingBudget"];
    if (level !== undefined && budget !== undefined) {
        return "You can only set only one of thinking budget and thinking level.";
    }
    if (level !== undefined && !usesLevels(model)) {
        return `Thinking level is not supported for this model.`;
    }
    if (
        level !== undefined &&
        !["minimal", "low", "medium", "high"].includes(String(level).toLowerCase())
    ) {
        return `* GenerateContentRequest.generation_config.thinking_config.thinking_level: invalid value ${String(level)}`;
    }
    return undefined;
}

/** Gemini 3 and later: thinking levels, and signatures required on replayed function calls. */
export function usesLevels(model: string): boolean {
    const major = /gemini-(\d+)/.exec(model)?.[1];
    return major !== undefined && Number(major) >= 3;
}

function contentsProblem(contents: unknown[], ctx: RuleContext): string | undefined {
    let previous: Json | undefined;
    for (const [i, content] of contents.entries()) {
        if (!isRecord(content)) return `* GenerateContentRequest.contents[${i}]: must be an object`;
        const role = content["role"];
        if (role !== "user" && role !== "model") {
            return `* GenerateContentRequest.contents[${i}].role: Please use a valid role: user, model.`;
        }
        const parts = content["parts"];
        if (!Array.isArray(parts) || parts.length === 0) {
            return `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.`;
        }
        for (const [j, part] of parts.entries()) {
            const problem = partProblem(part, `contents[${i}].parts[${j}]`, role, ctx);
            if (problem) return problem;
        }
        if (i === 0 && role !== "user") {
            return "Please ensure that multiturn requests alternate between user and model, and start with a user turn.";
        }
        if (previous && previous["role"] === role) {
            return "Please ensure that multiturn requests alternate between user and model.";
        }
        const pairing = pairingProblem(previous, content, i);
        if (pairing) return pairing;
        previous = content;
    }
    if (previous?.["role"] !== "user") {
        return "Please ensure that the last turn is a user turn (or a function response).";
    }
    return signatureProblem(contents as Json[], ctx);
}

function partProblem(
    part: unknown,
    where: string,
    role: string,
    ctx: RuleContext
): string | undefined {
    if (!isRecord(part)) return `* GenerateContentRequest.${where}: must be an object`;
    const data = PART_DATA.filter((key) => part[key] !== undefined);
    if (data.length !== 1) {
        return `* GenerateContentRequest.${where}.data: required oneof field 'data' must have one initialized field`;
    }
    const signature = part["thoughtSignature"];
    if (signature !== undefined) {
        if (role !== "model")
            return `* GenerateContentRequest.${where}: thought_signature is only valid on model turns`;
        const known =
            signature === FOREIGN_CALL_SIGNATURE || ctx.issuedSignatures.has(String(signature));
        if (typeof signature !== "string" || !known) {
            return `* GenerateContentRequest.${where}.thought_signature: Thought signature is not valid.`;
        }
    }
    const inline = part["inlineData"];
    if (isRecord(inline)) {
        if (!IMAGE_TYPES.has(String(inline["mimeType"]))) {
            return `* GenerateContentRequest.${where}.inline_data.mime_type: Unsupported MIME type: ${String(inline["mimeType"])}`;
        }
        const data = inline["data"];
        if (typeof data !== "string" || data.length === 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) {
            return `* GenerateContentRequest.${where}.inline_data.data: Base64 decoding failed`;
        }
    }
    const call = part["functionCall"];
    if (
        call !== undefined &&
        (role !== "model" || !isRecord(call) || typeof call["name"] !== "string")
    ) {
        return `* GenerateContentRequest.${where}.function_call: a function call must name its function and come from the model`;
    }
    const response = part["functionResponse"];
    if (response !== undefined) {
        if (role !== "user" || !isRecord(response) || typeof response["name"] !== "string") {
            return `* GenerateContentRequest.${where}.function_response.name: Name cannot be empty.`;
        }
        if (!isRecord(response["response"])) {
            return `* GenerateContentRequest.${where}.function_response.response: must be an object`;
        }
    }
    return undefined;
}

function functionCalls(content: Json | undefined): Json[] {
    const parts = (content?.["parts"] as Json[] | undefined) ?? [];
    return parts.filter((p) => isRecord(p["functionCall"])).map((p) => p["functionCall"] as Json);
}

function functionResponses(content: Json): Json[] {
    const parts = content["parts"] as Json[];
    return parts
        .filter((p) => isRecord(p["functionResponse"]))
        .map((p) => p["functionResponse"] as Json);
}

/** Every call of a model turn answered in the next user turn, by name and (when given) id. */
function pairingProblem(previous: Json | undefined, content: Json, i: number): string | undefined {
    const calls = content["role"] === "user" ? functionCalls(previous) : [];
    const responses = content["role"] === "user" ? functionResponses(content) : [];
    if (responses.length === 0 && calls.length === 0) return undefined;
    if (responses.length !== calls.length) {
        return `Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn. (contents[${i}]: ${responses.length} responses for ${calls.length} calls)`;
    }
    for (const call of calls) {
        const answered = responses.some(
            (r) =>
                r["name"] === call["name"] && (call["id"] === undefined || r["id"] === call["id"])
        );
        if (!answered) {
            return `* GenerateContentRequest.contents[${i}]: function call ${String(call["name"])} (${String(call["id"] ?? "no id")}) has no matching function response`;
        }
    }
    return undefined;
}

/**
 * Gemini 3: in the current turn (from the last user text on), the first
 * function call of every model step must carry its signature.
 */
function signatureProblem(contents: Json[], ctx: RuleContext): string | undefined {
    if (!usesLevels(ctx.model)) return undefined;
    let start = 0;
    for (const [i, content] of contents.entries()) {
        const parts = content["parts"] as Json[];
        if (content["role"] === "user" && parts.some((p) => typeof p["text"] === "string"))
            start = i;
    }
    for (let i = start; i < contents.length; i++) {
        const parts = contents[i]!["parts"] as Json[];
        const first = parts.find((p) => isRecord(p["functionCall"]));
        if (first && typeof first["thoughtSignature"] !== "string") {
            const name = String((first["functionCall"] as Json)["name"]);
            return `Function call \`${name}\` in the ${i}. content block is missing a \`thought_signature\`.`;
        }
    }
    return undefined;
}

function isRecord(value: unknown): value is Json {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}
