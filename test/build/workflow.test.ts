import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseCliArgs } from "../../src/cli/args";

// The documented review workflow (docs/github-actions/north-review.yml), checked against
// GitHub's workflow schema (SchemaStore's, vendored with its licence note) and against
// what the README promises: North in print mode, read-only, JSON kept as an artifact.
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WORKFLOW_PATH = "docs/github-actions/north-review.yml";

interface Step {
    name?: string;
    uses?: string;
    run?: string;
    if?: string;
    shell?: string;
    env?: Record<string, string>;
    with?: Record<string, unknown>;
}

interface Workflow {
    on: Record<string, unknown>;
    permissions?: Record<string, string>;
    jobs: Record<string, { steps: Step[] }>;
}

function loadWorkflow(): Workflow {
    return parse(readFileSync(join(ROOT, WORKFLOW_PATH), "utf8")) as Workflow;
}

function workflowValidator() {
    const schema = JSON.parse(
        readFileSync(join(ROOT, "test/build/fixtures/github-workflow.schema.json"), "utf8")
    ) as object;
    // strict off: the schema uses keywords and formats of its own (documented, not enforced).
    return new Ajv({ strict: false, allErrors: true }).compile(schema);
}

/** Words of one shell command, as bash would split them (quotes, `\` line continuations). */
function shellWords(command: string): string[] {
    const words: string[] = [];
    let word: string | null = null;
    const text = command.replace(/\\\n/g, " ");
    for (let i = 0; i < text.length; i++) {
        const c = text[i]!;
        if (c === '"' || c === "'") {
            const end = text.indexOf(c, i + 1);
            if (end < 0) throw new Error(`unbalanced ${c} in: ${command}`);
            word = (word ?? "") + text.slice(i + 1, end);
            i = end;
        } else if (/\s/.test(c)) {
            if (word !== null) words.push(word);
            word = null;
        } else if (c === "|" || c === ">" || c === ";" || c === "&") {
            break; // the north command ends at its redirection or the next command
        } else word = (word ?? "") + c;
    }
    if (word !== null) words.push(word);
    return words;
}

function allSteps(workflow: Workflow): Step[] {
    return Object.values(workflow.jobs).flatMap((job) => job.steps);
}

/** The `north -p …` invocation in the workflow's scripts: its step and its arguments. */
function northInvocation(workflow: Workflow): { step: Step; argv: string[]; script: string } {
    for (const step of allSteps(workflow)) {
        const script = (step.run ?? "").replace(/\\\n/g, " ");
        const at = script.search(/(^|[|\s])north -p\b/);
        if (at < 0) continue;
        const command = script.slice(script.indexOf("north -p", at));
        return { step, argv: shellWords(command).slice(1), script };
    }
    throw new Error(`no "north -p" command in ${WORKFLOW_PATH}`);
}

describe("the documented GitHub Actions workflow", () => {
    it("is a valid workflow by GitHub's schema, and the check catches a broken one", () => {
        const validate = workflowValidator();
        const workflow = loadWorkflow();
        expect(validate(workflow), JSON.stringify(validate.errors, null, 2)).toBe(true);
        // The schema must be strict enough to notice mistakes, or the check above proves nothing.
        const misspelled = { ...workflow, on: { pull_requests: null } };
        expect(validate(misspelled)).toBe(false);
        const badPermission = { ...workflow, permissions: { contents: "readonly" } };
        expect(validate(badPermission)).toBe(false);
    });

    it("lives in docs/, so it never runs on North's own repository", () => {
        expect(existsSync(join(ROOT, ".github/workflows/north-review.yml"))).toBe(false);
    });

    it("runs on pull requests with a read-only token", () => {
        const workflow = loadWorkflow();
        expect(Object.keys(workflow.on)).toEqual(["pull_request"]);
        expect(workflow.permissions).toEqual({ contents: "read" });
        const uses = allSteps(workflow).map((s) => s.uses?.split("@")[0]);
        expect(uses).toContain("actions/checkout");
        expect(uses).toContain("actions/setup-node");
        const setupNode = allSteps(workflow).find((s) => s.uses?.startsWith("actions/setup-node"));
        expect(String(setupNode?.with?.["node-version"])).toBe("20");
    });

    it("runs north in print mode, read-only, with JSON output and flags North accepts", () => {
        const workflow = loadWorkflow();
        const { step, argv, script } = northInvocation(workflow);
        const parsed = parseCliArgs(argv);
        if (!parsed.ok) throw new Error(`north rejects the workflow's flags: ${parsed.error}`);
        expect(parsed.args.command).toBe("run");
        expect(parsed.args.print).toBe(true);
        expect(parsed.args.outputFormat).toBe("json");
        expect(parsed.args.mode).toBe("ask");
        expect(parsed.args.prompt).toMatch(/review/i);
        // A pull request's own configuration must not run, and nothing may be changed.
        expect(parsed.args.trust).toBe(false);
        expect(parsed.args.allowEdits).toBe(false);
        expect(parsed.args.allowShell).toBe(false);
        expect(parsed.args.allowedCommands).toEqual([]);
        // The diff arrives on stdin; the key only from the repository's secrets.
        expect(script).toMatch(/git diff[^|]*\|\s*north -p/);
        expect(step.env?.ANTHROPIC_API_KEY).toBe("${{ secrets.ANTHROPIC_API_KEY }}");
        // `shell: bash` runs with pipefail, so a failing north fails the step.
        expect(step.shell).toBe("bash");
    });

    it("uploads the JSON result as an artifact, also when the review fails", () => {
        const workflow = loadWorkflow();
        const { script } = northInvocation(workflow);
        const output = /north -p[^\n]*>\s*(\S+)/.exec(script)?.[1];
        expect(output).toBeDefined();
        const steps = allSteps(workflow);
        const upload = steps.find((s) => s.uses?.startsWith("actions/upload-artifact@"));
        expect(upload).toBeDefined();
        expect(upload!.with?.path).toBe(output);
        expect(upload!.if).toBe("always()");
        const review = steps.findIndex((s) => s.run?.includes("north -p"));
        expect(steps.indexOf(upload!)).toBeGreaterThan(review);
    });

    it("installs North before using it", () => {
        const steps = allSteps(loadWorkflow());
        const install = steps.findIndex((s) => /npm install -g\s/.test(s.run ?? ""));
        const review = steps.findIndex((s) => s.run?.includes("north -p"));
        expect(install).toBeGreaterThanOrEqual(0);
        expect(install).toBeLessThan(review);
    });
});
