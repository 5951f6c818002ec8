/**
 * The 400 rules Bedrock applies to an InvokeModel body for Claude, checked
 * by the fake on every request: Bedrock's own (anthropic_version, no model or
 * stream field, keys it does not know) and the Messages API's (tool_use ids
 * paired with results, thinking replayed with signatures, the thinking
 * budget, at most four cache breakpoints, image size, tool names).
 */

const ALLOWED_KEYS = new Set([
    "anthropic_version",
    "anthropic_beta",
    "max_tokens",
    "messages",
    "system",
    "tools",
    "tool_choice",
    "thinking",
    "temperature",
    "top_p",
    "top_k",
    "stop_sequences",
    "metadata",
]);

/** Bedrock's limit on one image's decoded bytes for Claude. */
const MAX_IMAGE_BYTES = 3.75 * 1024 * 1024;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

type Json = Record<string, unknown>;

/** The ValidationException message Bedrock would answer, or undefined when the body passes. */
export function bedrockBodyProblem(body: unknown): string | undefined {
    if (!isObject(body))
        return "Malformed input request: #: expected type: JSONObject, please reformat your input and try again.";
    for (const key of Object.keys(body)) {
        if (!ALLOWED_KEYS.has(key)) {
            return `Malformed input request: #: extraneous key [${key}] is not permitted, please reformat your input and try again.`;
        }
    }
    if (body.anthropic_version !== "bedrock-2023-05-31") {
        return body.anthropic_version === undefined
            ? "Malformed input request: #: required key [anthropic_version] not found, please reformat your input and try again."
            : "Invalid API version";
    }
    if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) {
        return "Malformed input request: #: required key [max_tokens] not found, please reformat your input and try again.";
    }
    const messages = body.messages;
    if (!Array.isArray(messages) || messages.length === 0)
        return "messages: at least one message is required";
    return (
        thinkingProblem(body) ??
        messagesProblem(messages as unknown[]) ??
        cacheProblem(body) ??
        toolsProblem(body.tools)
    );
}

function thinkingProblem(body: Json): string | undefined {
    const thinking = body.thinking;
    if (thinking === undefined) return undefined;
    if (!isObject(thinking) || (thinking.type !== "enabled" && thinking.type !== "disabled")) {
        return "thinking.type: Input should be 'enabled' or 'disabled'";
    }
    if (thinking.type === "disabled") return undefined;
    const budget = thinking.budget_tokens;
    if (typeof budget !== "number" || budget < 1024) {
        return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024";
    }
    if (budget >= (body.max_tokens as number)) {
        return "`max_tokens` must be greater than `thinking.budget_tokens`.";
    }
    return undefined;
}

function messagesProblem(messages: unknown[]): string | undefined {
    let pending: string[] = [];
    for (const [index, message] of messages.entries()) {
        if (!isObject(message) || (message.role !== "user" && message.role !== "assistant")) {
            return `messages.${index}.role: Input should be 'user' or 'assistant'`;
        }
        if (index === 0 && message.role !== "user")
            return 'messages: first message must use the "user" role';
        const blocks = typeof message.content === "string" ? [] : message.content;
        if (!Array.isArray(blocks))
            return `messages.${index}.content: Input should be a valid list`;
        if (message.role === "user") {
            const answered = new Set<string>();
            for (const [at, block] of blocks.entries()) {
                if (!isObject(block)) continue;
                if (block.type === "tool_result") {
                    const id = String(block.tool_use_id);
                    if (!pending.includes(id)) {
                        return `messages.${index}.content.${at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
                    }
                    answered.add(id);
                }
                const image = imageProblem(block, `messages.${index}.content.${at}`);
                if (image) return image;
            }
            const missing = pending.filter((id) => !answered.has(id));
            if (missing.length > 0) {
                return `messages.${index - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
            }
            pending = [];
            continue;
        }
        if (pending.length > 0) {
            return `messages.${index - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${pending.join(", ")}.`;
        }
        for (const [at, block] of blocks.entries()) {
            if (!isObject(block)) continue;
            if (block.type === "tool_use") pending.push(String(block.id));
            if (
                block.type === "thinking" &&
                (typeof block.signature !== "string" || block.signature === "")
            ) {
                return `messages.${index}.content.${at}.thinking.signature: Field required`;
            }
            if (block.type === "text" && block.text === "") {
                return `messages.${index}.content.${at}.text: text content blocks must be non-empty`;
            }
        }
    }
    if (pending.length > 0) {
        return `messages.${messages.length - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${pending.join(", ")}.`;
    }
    return undefined;
}

function imageProblem(block: Json, where: string): string | undefined {
    const images =
        block.type === "image" ? [block] : Array.isArray(block.content) ? block.content : [];
    for (const image of images as unknown[]) {
        if (!isObject(image) || image.type !== "image" || !isObject(image.source)) continue;
        const data = image.source.data;
        if (typeof data === "string" && Buffer.byteLength(data, "base64") > MAX_IMAGE_BYTES) {
            return `${where}.image.source.base64: image exceeds 3.75 MB maximum`;
        }
    }
    return undefined;
}

function cacheProblem(body: Json): string | undefined {
    let count = 0;
    const visit = (value: unknown): void => {
        if (Array.isArray(value)) value.forEach(visit);
        else if (isObject(value)) {
            if (value.cache_control !== undefined) count++;
            for (const [key, inner] of Object.entries(value)) {
                if (key !== "cache_control" && key !== "input_schema" && key !== "input")
                    visit(inner);
            }
        }
    };
    visit([body.system, body.messages, body.tools]);
    return count > 4
        ? `A maximum of 4 blocks with cache_control may be provided. Found ${count}.`
        : undefined;
}

function toolsProblem(tools: unknown): string | undefined {
    if (tools === undefined) return undefined;
    if (!Array.isArray(tools)) return "tools: Input should be a valid list";
    for (const [index, tool] of tools.entries()) {
        if (!isObject(tool) || typeof tool.name !== "string" || !TOOL_NAME.test(tool.name)) {
            return `tools.${index}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
        }
        if (!isObject(tool.input_schema) || tool.input_schema.type !== "object") {
            return `tools.${index}.custom.input_schema.type: Input should be 'object'`;
        }
    }
    return undefined;
}

function isObject(value: unknown): value is Json {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}
