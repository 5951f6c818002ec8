/**
 * The 400 rules of the Anthropic Messages API (the body Anthropic, Bedrock,
 * Vertex AI and Foundry all take), from the API reference, the tool-use,
 * extended-thinking, vision and prompt-caching guides. Each problem is what
 * the API would refuse the request for; the messages follow the API's wording.
 */
import { imageFacts, isBase64 } from "./wire-rules-image";
import type { WireProblem } from "./wire-rules";

type Json = Record<string, unknown>;

const IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"];
/** Base64 length the API takes per image (Bedrock's 3.75 MB decoded is the same). */
export const ANTHROPIC_IMAGE_MAX_BASE64 = 5 * 1024 * 1024;
export const ANTHROPIC_MAX_IMAGES = 100;
/** Largest side in pixels; 2000 once a request has more than 20 images. */
const MAX_SIDE = 8000;
const MAX_SIDE_MANY = 2000;
const MANY_IMAGES = 20;
const MAX_CACHE_BREAKPOINTS = 4;
const MIN_THINKING_BUDGET = 1024;
/** The current Messages API reference allows 128 characters (OpenAI stops at 64). */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;

const isRecord = (value: unknown): value is Json =>
    typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Where the Messages body goes: Anthropic's API (and Foundry) name the model
 * in the body; Bedrock and Vertex AI name it in the URL and take the API
 * version in the body instead.
 */
export type MessagesHost = "anthropic" | "bedrock" | "vertex";

const HOST_VERSIONS: Record<Exclude<MessagesHost, "anthropic">, string> = {
    bedrock: "bedrock-2023-05-31",
    vertex: "vertex-2023-10-16",
};

/** The keys Bedrock's InvokeModel takes in a Claude body; any other is refused. */
const BEDROCK_KEYS = new Set([
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
/** The problems the Messages API would answer this request body with a 400 for. */
export function anthropicMessagesProblems(
    body: unknown,
    host: MessagesHost = "anthropic"
): WireProblem[] {
    const problems: WireProblem[] = [];
    const add = (rule: string, message: string): void => void problems.push({ rule, message });
    if (!isRecord(body)) {
        add("body", "request body must be a JSON object");
        return problems;
    }
    if (host === "anthropic") {
        if (typeof body.model !== "string" || !body.model) add("body", "model: Field required");
    } else {
        const version = HOST_VERSIONS[host];
        if (body.anthropic_version !== version) {
            add("body", `anthropic_version: Input should be '${version}'`);
        }
        // Both name the model in the URL; Bedrock refuses any key it does not know.
        if (host === "bedrock") {
            for (const key of Object.keys(body)) {
                if (!BEDROCK_KEYS.has(key)) add("body", `extraneous key [${key}] is not permitted`);
            }
        } else if (body.model !== undefined) {
            add("body", "model: Extra inputs are not permitted");
        }
    }
    const maxTokens = body.max_tokens;
    if (typeof maxTokens !== "number" || !Number.isInteger(maxTokens) || maxTokens < 1) {
        add("body", "max_tokens: Input should be a positive integer");
    }
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
        add("body", "messages: at least one message is required");
        return problems;
    }
    const messages = body.messages as unknown[];
    checkMessageShapes(messages, add);
    if (problems.length > 0) return problems;
    const turns = mergeTurns(messages as Array<{ role: string; content: unknown }>);
    checkToolPairing(turns, add);
    checkThinking(body, turns, add);
    checkImages(turns, add);
    checkCacheBreakpoints(body, turns, add);
    checkTools(body, add);
    return problems;
}

type Add = (rule: string, message: string) => void;

/** A turn after the API joined consecutive messages of one role. */
interface Turn {
    role: string;
    /** Index of the turn's first message in the request. */
    index: number;
    blocks: Json[];
}

function blocksOf(content: unknown): Json[] {
    if (typeof content === "string") return [{ type: "text", text: content }];
    return Array.isArray(content) ? content.filter(isRecord) : [];
}

/** The API joins consecutive user (or assistant) messages into one turn. */
function mergeTurns(messages: Array<{ role: string; content: unknown }>): Turn[] {
    const turns: Turn[] = [];
    messages.forEach((message, index) => {
        const last = turns[turns.length - 1];
        if (last && last.role === message.role) last.blocks.push(...blocksOf(message.content));
        else turns.push({ role: message.role, index, blocks: blocksOf(message.content) });
    });
    return turns;
}

const USER_ONLY = new Set(["tool_result", "image", "document"]);
const ASSISTANT_ONLY = new Set(["tool_use", "thinking", "redacted_thinking"]);

function checkMessageShapes(messages: unknown[], add: Add): void {
    messages.forEach((message, i) => {
        if (!isRecord(message)) return add("role", `messages.${i}: Input should be an object`);
        const { role, content } = message;
        if (role !== "user" && role !== "assistant") {
            add("role", `messages.${i}.role: Input should be 'user' or 'assistant'`);
            return;
        }
        if (i === 0 && role !== "user")
            add("first-user", 'messages: first message must use the "user" role');
        const last = i === messages.length - 1;
        const empty =
            typeof content === "string"
                ? content === ""
                : !Array.isArray(content) || content.length === 0;
        if (empty && !(last && role === "assistant")) {
            add(
                "empty-content",
                `messages.${i}: all messages must have non-empty content except for the optional final assistant message`
            );
            return;
        }
        if (last && role === "assistant" && endsWithWhitespace(content)) {
            add(
                "trailing-whitespace",
                "final assistant content cannot end with trailing whitespace"
            );
        }
        blocksOf(content).forEach((block, j) => {
            const at = `messages.${i}.content.${j}`;
            const type = String(block.type);
            if (role === "assistant" && USER_ONLY.has(type)) {
                add("block-role", `${at}: \`${type}\` blocks can only be in \`user\` messages`);
            }
            if (role === "user" && ASSISTANT_ONLY.has(type)) {
                add(
                    "block-role",
                    `${at}: \`${type}\` blocks can only be in \`assistant\` messages`
                );
            }
            if (type === "text" && (typeof block.text !== "string" || block.text.trim() === "")) {
                add("empty-text", `${at}: text content blocks must contain non-whitespace text`);
            }
            if (type === "thinking" && (typeof block.signature !== "string" || !block.signature)) {
                add("thinking-signed", `${at}.thinking.signature: Field required`);
            }
            if (type === "redacted_thinking" && (typeof block.data !== "string" || !block.data)) {
                add("thinking-signed", `${at}.redacted_thinking.data: Field required`);
            }
            if (type === "tool_use") {
                if (typeof block.id !== "string" || !TOOL_USE_ID.test(block.id)) {
                    add(
                        "tool-use-id",
                        `${at}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`
                    );
                }
                if (!isRecord(block.input))
                    add(
                        "tool-use-input",
                        `${at}.tool_use.input: Input should be a valid dictionary`
                    );
            }
            if (type === "tool_result") checkToolResultContent(block, at, add);
        });
    });
}

function endsWithWhitespace(content: unknown): boolean {
    if (typeof content === "string") return /\s$/.test(content);
    const blocks = blocksOf(content);
    const last = blocks[blocks.length - 1];
    return last?.type === "text" && typeof last.text === "string" && /\s$/.test(last.text);
}

function checkToolResultContent(block: Json, at: string, add: Add): void {
    const { content } = block;
    if (content === undefined || typeof content === "string") return;
    if (!Array.isArray(content)) {
        add(
            "tool-result-content",
            `${at}.tool_result.content: Input should be a string or a list of blocks`
        );
        return;
    }
    content.forEach((inner, k) => {
        const type = isRecord(inner) ? inner.type : undefined;
        if (
            type !== "text" &&
            type !== "image" &&
            type !== "document" &&
            type !== "search_result"
        ) {
            add(
                "tool-result-content",
                `${at}.tool_result.content.${k}: unsupported block type ${String(type)}`
            );
        } else if (
            type === "text" &&
            isRecord(inner) &&
            (typeof inner.text !== "string" || inner.text.trim() === "")
        ) {
            add(
                "empty-text",
                `${at}.tool_result.content.${k}: text content blocks must contain non-whitespace text`
            );
        }
    });
}

/**
 * Every `tool_use` is answered by a `tool_result` in the very next (user)
 * turn, whose tool results come before anything else; a `tool_result` answers
 * a `tool_use` of the turn right before it.
 */
function checkToolPairing(turns: Turn[], add: Add): void {
    const seen = new Set<string>();
    turns.forEach((turn, t) => {
        if (turn.role === "assistant") {
            const ids = toolUseIds(turn);
            for (const id of ids) {
                if (seen.has(id))
                    add(
                        "tool-use-id-unique",
                        `messages.${turn.index}: \`tool_use\` ids must be unique: ${id}`
                    );
                seen.add(id);
            }
            if (ids.length === 0) return;
            const next = turns[t + 1];
            const answered = new Set(next?.role === "user" ? resultIds(next) : []);
            const missing = ids.filter((id) => !answered.has(id));
            if (missing.length > 0) {
                add(
                    "tool-use-answered",
                    `messages.${turn.index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`
                );
            }
            return;
        }
        const previous = turns[t - 1];
        const asked = new Set(previous ? toolUseIds(previous) : []);
        const unexpected = resultIds(turn).filter((id) => !asked.has(id));
        if (unexpected.length > 0) {
            add(
                "tool-result-paired",
                `messages.${turn.index}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${unexpected.join(", ")}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`
            );
        }
        const firstOther = turn.blocks.findIndex((b) => b.type !== "tool_result");
        const lastResult = turn.blocks.map((b) => b.type).lastIndexOf("tool_result");
        if (firstOther !== -1 && lastResult > firstOther) {
            add(
                "tool-result-first",
                `messages.${turn.index}: \`tool_result\` blocks must come first in the content of a user message, before any other block`
            );
        }
    });
}

const toolUseIds = (turn: Turn): string[] =>
    turn.blocks.filter((b) => b.type === "tool_use").map((b) => String(b.id));
const resultIds = (turn: Turn): string[] =>
    turn.blocks.filter((b) => b.type === "tool_result").map((b) => String(b.tool_use_id));

function checkThinking(body: Json, turns: Turn[], add: Add): void {
    const thinking = body.thinking;
    if (thinking === undefined) return;
    if (
        !isRecord(thinking) ||
        !["enabled", "disabled", "adaptive"].includes(String(thinking.type))
    ) {
        add(
            "thinking-budget",
            "thinking.type: Input should be 'enabled', 'disabled' or 'adaptive'"
        );
        return;
    }
    if (thinking.type === "disabled") return;
    if (thinking.type === "enabled") {
        const budget = thinking.budget_tokens;
        if (
            typeof budget !== "number" ||
            !Number.isInteger(budget) ||
            budget < MIN_THINKING_BUDGET
        ) {
            add(
                "thinking-budget",
                `thinking.enabled.budget_tokens: Input should be greater than or equal to ${MIN_THINKING_BUDGET}`
            );
        } else if (typeof body.max_tokens === "number" && body.max_tokens <= budget) {
            add("thinking-budget", "`max_tokens` must be greater than `thinking.budget_tokens`");
        }
    }
    if (body.temperature !== undefined && body.temperature !== 1) {
        add("thinking-sampling", "`temperature` may only be set to 1 when thinking is enabled");
    }
    if (body.top_k !== undefined)
        add("thinking-sampling", "`top_k` cannot be set when thinking is enabled");
    const choice = isRecord(body.tool_choice) ? body.tool_choice.type : undefined;
    if (choice === "any" || choice === "tool") {
        add(
            "thinking-tool-choice",
            "Thinking may not be enabled when tool_choice forces tool use."
        );
    }
    // In a tool loop (the request ends with tool results) the assistant turn
    // that called the tools must open with its thinking, replayed as it came.
    const last = turns[turns.length - 1];
    const assistant = turns[turns.length - 2];
    if (!last || last.role !== "user" || resultIds(last).length === 0 || !assistant) return;
    const first = assistant.blocks[0];
    if (first?.type !== "thinking" && first?.type !== "redacted_thinking") {
        add(
            "thinking-first",
            `messages.${assistant.index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceding the lastmost set of \`tool_use\` and \`tool_result\` blocks).`
        );
    }
}

/** Every image of the request, tool results' included. */
function* imagesOf(turns: Turn[]): Generator<{ at: string; block: Json }> {
    for (const turn of turns) {
        for (const [j, block] of turn.blocks.entries()) {
            if (block.type === "image") yield { at: `messages.${turn.index}.content.${j}`, block };
            if (block.type === "tool_result" && Array.isArray(block.content)) {
                for (const [k, inner] of block.content.entries()) {
                    if (isRecord(inner) && inner.type === "image") {
                        yield {
                            at: `messages.${turn.index}.content.${j}.content.${k}`,
                            block: inner,
                        };
                    }
                }
            }
        }
    }
}

function checkImages(turns: Turn[], add: Add): void {
    const images = [...imagesOf(turns)];
    if (images.length > ANTHROPIC_MAX_IMAGES) {
        add(
            "image-count",
            `Too many images: ${images.length} > ${ANTHROPIC_MAX_IMAGES} per request`
        );
    }
    const maxSide = images.length > MANY_IMAGES ? MAX_SIDE_MANY : MAX_SIDE;
    for (const { at, block } of images) {
        const source = block.source;
        if (!isRecord(source)) {
            add("image-source", `${at}.image.source: Field required`);
            continue;
        }
        if (source.type === "url") {
            if (typeof source.url !== "string" || !/^https?:\/\//.test(source.url)) {
                add("image-source", `${at}.image.source.url: Input should be a valid URL`);
            }
            continue;
        }
        if (source.type !== "base64") {
            add("image-source", `${at}.image.source.type: Input should be 'base64' or 'url'`);
            continue;
        }
        const mediaType = String(source.media_type);
        if (!IMAGE_TYPES.includes(mediaType)) {
            add(
                "image-media-type",
                `${at}.image.source.base64.media_type: Input should be ${IMAGE_TYPES.map((t) => `'${t}'`).join(", ")}`
            );
            continue;
        }
        const data = source.data;
        if (typeof data !== "string" || !isBase64(data) || data === "") {
            add("image-data", `${at}.image.source.base64.data: Image data is not valid base64`);
            continue;
        }
        if (data.length > ANTHROPIC_IMAGE_MAX_BASE64) {
            add(
                "image-size",
                `${at}.image.source.base64: image exceeds 5 MB maximum: ${data.length} bytes > ${ANTHROPIC_IMAGE_MAX_BASE64} bytes`
            );
        }
        const facts = imageFacts(data);
        if (facts.format !== mediaType) {
            add(
                "image-media-type",
                `${at}.image.source.base64.data: Image does not match the provided media type ${mediaType}`
            );
            continue;
        }
        if (facts.width !== undefined && facts.height !== undefined) {
            if (Math.max(facts.width, facts.height) > maxSide) {
                add(
                    "image-dimensions",
                    `${at}.image.source.base64.data: image dimensions exceed max allowed size: ${maxSide} pixels`
                );
            }
        }
    }
}

/** `cache_control` marks in the system prompt, tools and messages: at most four. */
function checkCacheBreakpoints(body: Json, turns: Turn[], add: Add): void {
    let count = 0;
    const marked = (block: unknown): void => {
        if (isRecord(block) && block.cache_control !== undefined) count++;
    };
    if (Array.isArray(body.system)) body.system.forEach(marked);
    if (Array.isArray(body.tools)) body.tools.forEach(marked);
    for (const turn of turns) {
        for (const block of turn.blocks) {
            marked(block);
            if (block.type === "tool_result" && Array.isArray(block.content))
                block.content.forEach(marked);
        }
    }
    if (count > MAX_CACHE_BREAKPOINTS) {
        add(
            "cache-control",
            `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${count}.`
        );
    }
}

function checkTools(body: Json, add: Add): void {
    if (body.tools === undefined) return;
    if (!Array.isArray(body.tools)) {
        add("tool-name", "tools: Input should be a valid list");
        return;
    }
    const names = new Set<string>();
    body.tools.forEach((tool, i) => {
        if (!isRecord(tool)) return add("tool-name", `tools.${i}: Input should be an object`);
        const name = String(tool.name);
        if (!TOOL_NAME.test(name)) {
            add(
                "tool-name",
                `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`
            );
        }
        if (names.has(name)) add("tool-name-unique", "tools: Tool names must be unique.");
        names.add(name);
        // Server tools carry a versioned `type`; custom tools need an object schema.
        const custom = tool.type === undefined || tool.type === "custom";
        if (custom && (!isRecord(tool.input_schema) || tool.input_schema.type !== "object")) {
            add("tool-schema", `tools.${i}.custom.input_schema.type: Input should be 'object'`);
        }
    });
}
