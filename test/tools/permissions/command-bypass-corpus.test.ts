import { describe, expect, it } from "vitest";
import { judgeCommand } from "../../../src/tools/permissions/command-judge";
import {
    BYPASS_CORPUS,
    CORPUS_CWD,
    CORPUS_EDIT_DENY_GLOBS,
    CORPUS_RULES,
    type Expected,
    corpusJudgeWrite,
} from "./bypass-corpus";

interface Outcome {
    category: string;
    command: string;
    expected: Expected;
    actual: string;
    reason: string;
}

async function judgeCorpus(): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    for (const [category, cases] of Object.entries(BYPASS_CORPUS)) {
        for (const [command, expected] of cases) {
            const verdict = await judgeCommand(command, CORPUS_RULES, corpusJudgeWrite, {
                cwd: CORPUS_CWD,
                editDenyGlobs: CORPUS_EDIT_DENY_GLOBS,
                // bash's default glob options, whatever the environment running the tests sets.
                shellEnv: {},
            });
            const reason =
                verdict.decision === "allow"
                    ? verdict.commands.join(" | ")
                    : verdict.decision === "deny"
                      ? `${verdict.rule}: ${verdict.reason}`
                      : verdict.reason;
            outcomes.push({ category, command, expected, actual: verdict.decision, reason });
        }
    }
    return outcomes;
}

describe("the bypass corpus", () => {
    it("has at least 200 labelled commands", () => {
        const total = Object.values(BYPASS_CORPUS).flat().length;
        expect(total).toBeGreaterThanOrEqual(200);
    });

    it("denies every denied command, allows nothing outside the allow rules, and matches every label", async () => {
        const outcomes = await judgeCorpus();
        const rows = Object.keys(BYPASS_CORPUS).map((category) => {
            const inCategory = outcomes.filter((outcome) => outcome.category === category);
            const count = (decision: string) =>
                inCategory.filter((outcome) => outcome.actual === decision).length;
            return `${category.padEnd(38)} ${String(inCategory.length).padStart(4)}  allow ${count("allow")}  deny ${count("deny")}  ask ${count("ask")}`;
        });
        console.log(`bypass corpus (${outcomes.length} commands)\n${rows.join("\n")}`);

        const show = (outcome: Outcome) =>
            `[${outcome.category}] ${JSON.stringify(outcome.command)}: expected ${outcome.expected}, got ${outcome.actual} (${outcome.reason})`;
        // The two failures that matter most, listed first.
        const deniedThatRun = outcomes.filter(
            (outcome) => outcome.expected === "deny" && outcome.actual !== "deny"
        );
        const allowedOutsideRules = outcomes.filter(
            (outcome) => outcome.expected !== "allow" && outcome.actual === "allow"
        );
        expect(deniedThatRun.map(show)).toEqual([]);
        expect(allowedOutsideRules.map(show)).toEqual([]);
        // Over-asking and over-denying are mislabels too.
        const mislabelled = outcomes.filter((outcome) => outcome.expected !== outcome.actual);
        expect(mislabelled.map(show)).toEqual([]);
    });
});
