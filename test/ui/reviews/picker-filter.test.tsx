import { stripVTControlCharacters } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { filterOptions } from "../../../src/ui/reviews/picker-filter";
import { PickerReview } from "../../../src/ui/reviews/picker-review";
import { renderToFakeTerminal } from "../ink-harness";

const models = [
    { id: "sonnet", label: "sonnet", hint: "Claude Sonnet 4 · anthropic" },
    { id: "opus", label: "opus", hint: "Claude Opus 4 · anthropic" },
    { id: "gpt-5", label: "gpt-5", hint: "GPT-5 · openai" },
    { id: "gpt-5-mini", label: "gpt-5-mini", hint: "GPT-5 mini · openai" },
    { id: "haiku", label: "haiku", hint: "Claude Haiku · anthropic" },
];

describe("filterOptions", () => {
    it("keeps every option for an empty query, in the picker's order", () => {
        expect(filterOptions(models, "").map((m) => m.id)).toEqual(models.map((m) => m.id));
    });

    it("puts prefixes before containing labels before scattered letters, then the hint; order within a tier", () => {
        const list = [
            { id: "a", label: "my-gpt" },
            { id: "b", label: "gpt-5" },
            { id: "c", label: "g-p-t" },
            { id: "d", label: "other", hint: "a gpt model" },
            { id: "e", label: "gpt-4" },
            { id: "f", label: "nothing" },
        ];
        expect(filterOptions(list, "GPT").map((o) => o.id)).toEqual(["b", "e", "a", "c", "d"]);
    });

    it("finds options by their hint (a provider, a display name)", () => {
        expect(filterOptions(models, "openai").map((m) => m.id)).toEqual(["gpt-5", "gpt-5-mini"]);
        expect(filterOptions(models, "zzz")).toEqual([]);
    });
});

describe("typing in a picker", () => {
    let unmount: (() => void) | undefined;
    afterEach(() => unmount?.());

    it("narrows the list as letters come, shows the count, widens with Backspace and picks the highlighted with Enter", async () => {
        const chosen: Array<string | null> = [];
        const r = renderToFakeTerminal(
            <PickerReview
                title="Choose a model"
                options={models}
                status="pending"
                width={70}
                active
                onChoose={(id) => chosen.push(id)}
            />
        );
        unmount = () => r.instance.unmount();
        const frame = () => stripVTControlCharacters(r.lastFrame());
        await r.shows("type to filter");
        await r.type("gp");
        await r.shows("filter: gp · 2 of 5");
        expect(frame()).toContain("› gpt-5");
        expect(frame()).not.toContain("sonnet");
        await r.type("t-5-m");
        await r.shows("1 of 5");
        expect(frame()).toContain("› gpt-5-mini");
        await r.type("\x7f\x7f\x7f");
        await r.shows("filter: gpt- · 2 of 5");
        await r.type("\x1b[B");
        await r.shows("› gpt-5-mini");
        await r.type("\r");
        expect(chosen).toEqual(["gpt-5-mini"]);
    });

    it("says when nothing matches; Enter then picks nothing and Esc cancels", async () => {
        const chosen: Array<string | null> = [];
        const r = renderToFakeTerminal(
            <PickerReview
                title="Choose a model"
                options={models}
                status="pending"
                width={70}
                active
                onChoose={(id) => chosen.push(id)}
            />
        );
        unmount = () => r.instance.unmount();
        await r.type("qqq");
        await r.shows("(nothing matches)");
        await r.type("\r");
        expect(chosen).toEqual([]);
        await r.type("\x1b");
        await expect.poll(() => chosen, { timeout: 10_000 }).toEqual([null]);
    });
});
