/**
 * The code-intelligence defects of issue 17, each as a minimal repro taken
 * from real code (zod, cobra, ripgrep): what get_file_symbols lists, where
 * each declaration ends, and the block find_code_block answers with.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFindCodeBlockTool } from "../../src/tools/find-code-block";
import { createGetFileOutlineTool } from "../../src/tools/get-file-outline";
import { createGetFileSymbolsTool, pageOfSymbols } from "../../src/tools/get-file-symbols";
import { type TempRepo, makeRepo, ok, run } from "./nav-fixtures";

let repo: TempRepo;
beforeEach(() => {
    repo = makeRepo();
});
afterEach(() => repo.dispose());

const symbolsTool = createGetFileSymbolsTool();

async function symbols(rel: string, lines: string[]): Promise<string[]> {
    repo.write(rel, `${lines.join("\n")}\n`);
    const data = ok(await run(symbolsTool, { path: rel }, repo.ctx));
    return data.symbols.map((s) => `${s.kind} ${s.name} ${s.line}-${s.endLine}`);
}

const ZOD_CLASS = [
    "export abstract class ZodType<Output = any> {", // 1
    "  _processInputParams(input: ParseInput): {",
    "    status: ParseStatus;",
    "    ctx: ParseContext;",
    "  } {", // 5
    "    return { status: new ParseStatus(), ctx: this._getOrReturnCtx(input) };",
    "  }",
    '  "~validate"(data: unknown): Result<Output> | Promise<Result<Output>> {',
    "    return this._parseSync({ data });",
    "  }", // 10
    "  default(def: util.noUndefined<Input>): ZodDefault<this>;",
    "  default(def: any) {",
    '    const defaultValueFunc = typeof def === "function" ? def : () => def;',
    "    return new ZodDefault({ defaultValue: defaultValueFunc });",
    "  }", // 15
    "  catch(def: any) {",
    "    return new ZodCatch({ catchValue: def });",
    "  }",
    "  pick<Mask extends util.Exactly<{ [k in keyof T]?: true }, Mask>>(",
    "    mask: Mask", // 20
    "  ): ZodObject<Pick<T, Extract<keyof T, keyof Mask>>> {",
    "    const shape: any = {};",
    "    return new ZodObject({ shape: () => shape });",
    "  }",
    "  partial<Mask extends util.Exactly<{ [k in keyof T]?: true }, Mask>>(", // 25
    "    mask: Mask",
    "  ): ZodObject<",
    "    objectUtil.noNever<{",
    "      [k in keyof T]: ZodOptional<T[k]>;",
    "    }>", // 30
    "  >;",
    "  static create = <El extends ZodTypeAny,>(schema: El): ZodArray<El> => {",
    "    return new ZodArray({ type: schema });",
    "  };",
    "}", // 35
];

describe("TypeScript declarations", () => {
    it("lists methods named by keywords, quoted names, nested generics, overloads and generic arrow properties", async () => {
        expect(await symbols("types.ts", ZOD_CLASS)).toEqual([
            "class ZodType 1-35",
            "method _processInputParams 2-7",
            "method ~validate 8-10",
            "method default 11-11",
            "method default 12-15",
            "method catch 16-18",
            "method pick 19-24",
            "method partial 25-31",
            "method create 32-34",
        ]);
    });

    it("find_code_block answers with the method, not the class around it", async () => {
        repo.write("types.ts", `${ZOD_CLASS.join("\n")}\n`);
        const tool = createFindCodeBlockTool();
        const found = async (query: string) =>
            ok(await run(tool, { path: "types.ts", query }, repo.ctx)).matches.map(
                (m) => `${m.kind} ${m.name} ${m.startLine}-${m.endLine}`
            );
        expect(await found("defaultValueFunc })")).toEqual(["method default 12-15"]);
        expect(await found("this._parseSync")).toEqual(["method ~validate 8-10"]);
        expect(await found("const shape: any")).toEqual(["method pick 19-24"]);
        expect(await found("ctx: this._getOrReturnCtx")).toEqual([
            "method _processInputParams 2-7",
        ]);
    });

    it("sees through comments between modifiers and ignores const type parameters", async () => {
        expect(
            await symbols("core.ts", [
                "export /*@__NO_SIDE_EFFECTS__*/ function $constructor<T extends ZodTrait>(",
                "  name: string,",
                "): $constructor<T> {",
                "  return init as any;",
                "}",
                "export function pipe<",
                "  const A extends SomeType,",
                "  const B extends SomeType = A,",
                ">(in_: A, out: B): ZodPipe<A, B> {",
                "  return new ZodPipe({ in: in_, out });",
                "}",
            ])
        ).toEqual(["function $constructor 1-5", "function pipe 6-11"]);
    });

    it("ends typed consts, union types and typed arrow consts where the statement ends", async () => {
        expect(
            await symbols("util.ts", [
                "export const ZodParsedType: {", // 1
                "  string: string;",
                "  number: string;",
                "} = util.arrayToEnum([",
                '  "string",', // 5
                '  "number",',
                "]);",
                "export type RawCreateParams =",
                "  | {",
                "      errorMap?: ZodErrorMap | undefined;", // 10
                "    }",
                "  | undefined;",
                "export const stringbool: (params?: { case?: string }) => ZodCodec = (...args) =>",
                "  _stringbool({ Codec: ZodCodec }, ...args);",
                "const instanceOfType = <T extends typeof Class>(", // 15
                "  // const instanceOfType = <T extends new (...args: any[]) => any>(",
                "  cls: T",
                ") => custom<InstanceType<T>>((data) => data instanceof cls);",
                "export const captureStackTrace: (target: object) => void = (",
                '  "captureStackTrace" in Error ? Error.captureStackTrace : (..._args: any[]) => {}', // 20
                ") as any;",
            ])
        ).toEqual([
            "const ZodParsedType 1-7",
            "type RawCreateParams 8-12",
            "function stringbool 13-14",
            "function instanceOfType 15-18",
            "const captureStackTrace 19-21",
        ]);
    });
});

describe("Go declarations", () => {
    it("lists every spec of const ( … ) and var ( … ) groups and ends raw strings where they end", async () => {
        expect(
            await symbols("completions.go", [
                "package cobra", // 1
                "",
                "const (",
                "\t// ShellCompDirectiveError indicates an error occurred.",
                "\tShellCompDirectiveError ShellCompDirective = 1 << iota", // 5
                "",
                "\tShellCompDirectiveNoSpace",
                "\t_",
                '\tcompCmdName, compCmdAlias = "__complete",',
                '\t\t"__c"', // 10
                ")",
                "",
                "var (",
                "\tflagCompletionFunctions = map[string]int{",
                '\t\t"a": 1,', // 15
                "\t}",
                ")",
                "",
                "const defaultUsageTemplate = `Usage:{{if .Runnable}}",
                "  {{.UseLine}}{{end}}", // 20
                "`",
                "",
                "type tHelper = interface {",
                "\tHelper()",
                "}", // 25
            ])
        ).toEqual([
            "const ShellCompDirectiveError 5-5",
            "const ShellCompDirectiveNoSpace 7-7",
            "const compCmdName 9-10",
            "const compCmdAlias 9-10",
            "variable flagCompletionFunctions 14-16",
            "const defaultUsageTemplate 19-21",
            "interface tHelper 23-25",
        ]);
    });
});

describe("Rust declarations", () => {
    it("names multi-line impls by their whole head and reads bounds with ->", async () => {
        expect(
            await symbols("walk.rs", [
                "impl<'a, 's, P: ParallelVisitorBuilder<'s>> ParallelVisitorBuilder<'s>",
                "    for &'a mut P",
                "{",
                "    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {",
                "        (**self).build()",
                "    }",
                "}",
                "impl<'s, F: FnMut() -> FnVisitor<'s>> ParallelVisitorBuilder<'s> for FnBuilder<F> {",
                "    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {",
                "        Box::new(FnVisitorImp { visitor: (self.builder)() })",
                "    }",
                "}",
            ])
        ).toEqual([
            "impl ParallelVisitorBuilder<'s> for &'a mut P 1-7",
            "method build 4-6",
            "impl ParallelVisitorBuilder<'s> for FnBuilder<F> 8-12",
            "method build 9-11",
        ]);
    });
});

describe("large files", () => {
    const many = Array.from({ length: 1_200 }, (_, i) => `func f${i}() {}`);

    it("get_file_symbols pages with startLine = nextLine until every symbol was listed", async () => {
        repo.write("gen.go", `package gen\n${many.join("\n")}\n`);
        const first = ok(await run(symbolsTool, { path: "gen.go" }, repo.ctx));
        expect(first.symbols).toHaveLength(500);
        expect(first.truncated).toBe(true);
        expect(first.total).toBe(1_200);
        expect(first.nextLine).toBe(502);
        expect(first.hint).toContain("get_file_symbols again with startLine 502");
        const second = ok(await run(symbolsTool, { path: "gen.go", startLine: 502 }, repo.ctx));
        expect(second.symbols[0]).toMatchObject({ name: "f500", line: 502 });
        expect(second.symbols[0]!.signature).toBe("func f500()");
        expect(second.total).toBe(700);
        const third = ok(
            await run(symbolsTool, { path: "gen.go", startLine: second.nextLine }, repo.ctx)
        );
        expect(third.truncated).toBe(false);
        expect(third.nextLine).toBeUndefined();
        expect(third.symbols.at(-1)).toMatchObject({ name: "f1199", line: 1_201 });
        const late = ok(await run(symbolsTool, { path: "gen.go", startLine: 5_000 }, repo.ctx));
        expect(late.symbols).toEqual([]);
        expect(late.hint).toContain("No symbols from line 5000 on");
    });

    it("cuts a page between lines, so no symbol sharing the cut line is lost or repeated", () => {
        const list = [1, 2, 3, 3, 3, 4].map((line, i) => ({ line, i }));
        const page = pageOfSymbols(list, 4);
        expect(page.page.map((s) => s.i)).toEqual([0, 1]);
        expect(page.nextLine).toBe(3);
        expect(pageOfSymbols(list, 6)).toEqual({ page: list });
        // More symbols on one line than a page holds: the next page starts after that line.
        const crowded = [5, 5, 5, 6].map((line, i) => ({ line, i }));
        expect(pageOfSymbols(crowded, 2)).toEqual({ page: crowded.slice(0, 2), nextLine: 6 });
    });

    it("get_file_outline's folded members lead to get_file_symbols at the class's line", async () => {
        const cls = ["export const before = 1;", "export class Big {"];
        for (let i = 0; i < 300; i++) cls.push(`    m${i}() {\n        return ${i};\n    }`);
        cls.push("}");
        repo.write("cls.ts", `${cls.join("\n")}\n`);
        const outline = ok(await run(createGetFileOutlineTool(), { path: "cls.ts" }, repo.ctx));
        expect(outline.items[1]!.hiddenChildren).toBe(300);
        expect(outline.note).toContain("get_file_symbols with startLine 2 lists them");
        const listed = ok(await run(symbolsTool, { path: "cls.ts", startLine: 2 }, repo.ctx));
        expect(listed.symbols.map((s) => s.name).slice(0, 3)).toEqual(["Big", "m0", "m1"]);
        expect(listed.symbols).toHaveLength(301);
    });
});
