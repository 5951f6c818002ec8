import type { ModelInfo } from "../providers/catalogue";
import type { Provider } from "../providers/types";
import type { Logger } from "../storage/logger";
import { denyAll } from "./approvals";
import { AgentSession, type SessionOptions, type ToolRunner } from "./session";

export interface DiscoveryTopic {
    title: string;
    question: string;
}

/** The spec's ten discovery topics, in order. */
export const DISCOVERY_TOPICS: DiscoveryTopic[] = [
    {
        title: "Project Summary",
        question:
            "What is this project, who is it for, its main workflows, and what it does not do?",
    },
    {
        title: "Architecture Map",
        question: "What are the major modules and entry points, and how is the code structured?",
    },
    {
        title: "Code Style and Conventions",
        question: "What naming, layout, formatting and lint conventions does the code follow?",
    },
    {
        title: "Domain Model Vocabulary",
        question: "What are the key domain concepts and terms, and where is each defined?",
    },
    {
        title: "Data Flow and State",
        question: "How does data flow: persistence, caches, state, and the main data paths?",
    },
    {
        title: "External Dependencies",
        question: "Which frameworks, libraries, services and configuration does it depend on?",
    },
    {
        title: "Build, Run, and Test Workflow",
        question: "What are the exact commands to build, run and test it?",
    },
    {
        title: "Hot Spots and Change Patterns",
        question: "Which areas change most often, and how are changes usually made?",
    },
    {
        title: "Common Tasks Playbook",
        question: "Where would one implement the most common kinds of change?",
    },
    {
        title: "Safety Rails and Footguns",
        question: "What pitfalls, constraints and dangerous areas should a contributor know?",
    },
];

/** At most this many tool iterations per topic (the answer turn comes on top). */
export const MAX_TOOL_ITERATIONS_PER_TOPIC = 5;

const LEARNING_SYSTEM_PROMPT = `You are exploring a code repository to write one section of a concise project profile for future coding sessions. Use the read-only tools briefly (a few calls), then answer in Markdown bullet points: specific, with file paths, no filler, at most about 200 words. Do not invent what you did not see.`;

export interface LearningOptions {
    repoRoot: string;
    model: ModelInfo;
    providerFor: (model: ModelInfo) => Promise<Provider>;
    /** Read-only tools only; anything else is not offered. */
    tools: ToolRunner;
    logger?: Logger;
    signal?: AbortSignal;
    onProgress?: (percent: number, topic: string) => void;
    topics?: DiscoveryTopic[];
    /** Told of every response's usage and cost, as a session's `usageSink`. */
    usageSink?: SessionOptions["usageSink"];
}

export interface LearningResult {
    /** `# Project Profile` followed by one H2 section per learned topic. */
    markdown: string;
    learned: string[];
    skipped: Array<{ topic: string; reason: string }>;
    cancelled: boolean;
}

/**
 * Runs the discovery topics one after another, each as a short read-only
 * conversation; a topic that fails is skipped and learning goes on.
 */
export async function runLearningSession(options: LearningOptions): Promise<LearningResult> {
    const topics = options.topics ?? DISCOVERY_TOPICS;
    const readOnly: ToolRunner = {
        list: () => options.tools.list().filter((t) => t.readOnly),
        schemas: (filter) => options.tools.schemas((t) => t.readOnly && (!filter || filter(t))),
        execute: (name, input, ctx) => options.tools.execute(name, input, ctx),
    };
    const sections: string[] = [];
    const learned: string[] = [];
    const skipped: LearningResult["skipped"] = [];
    for (const [index, topic] of topics.entries()) {
        if (options.signal?.aborted) return finish(true);
        options.onProgress?.(Math.round((index / topics.length) * 100), topic.title);
        const session = new AgentSession({
            sessionId: `learn-${index}`,
            repoRoot: options.repoRoot,
            model: options.model,
            providerFor: options.providerFor,
            tools: readOnly,
            approver: denyAll("learning is read-only"),
            logger: options.logger,
            systemPrompt: LEARNING_SYSTEM_PROMPT,
            usageSink: options.usageSink,
        });
        const result = await session.run(`Topic: ${topic.title}. ${topic.question}`, {
            mode: "ask",
            signal: options.signal,
            maxTurns: MAX_TOOL_ITERATIONS_PER_TOPIC + 1,
        });
        if (result.subtype === "cancelled") return finish(true);
        if (result.subtype === "success" && result.text.trim()) {
            sections.push(`## ${topic.title}\n\n${result.text.trim()}`);
            learned.push(topic.title);
        } else {
            const reason = result.error ?? "no answer";
            skipped.push({ topic: topic.title, reason });
            options.logger?.warn("learning_topic_skipped", { topic: topic.title, reason });
        }
    }
    options.onProgress?.(100, "done");
    return finish(false);

    function finish(cancelled: boolean): LearningResult {
        return {
            markdown: `# Project Profile\n\n${sections.join("\n\n")}\n`,
            learned,
            skipped,
            cancelled,
        };
    }
}
