import { join } from 'node:path'
import ts from 'typescript'
import { ROOT } from './dockerfile.js'

/**
 * Compiles each screen as a file of its own in test/<folder>/ (in memory), with the project's own compiler options as
 * `npm run typecheck` compiles a screen: its errors, flattened, by file name.
 */
export function compile (screens: Record<string, string>, folder: string): Map<string, string[]> {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile)
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT)
  const files = new Map(Object.entries(screens).map(([name, code]) => [join(ROOT, 'test', folder, `${name}.ts`), code]))
  const host = ts.createCompilerHost(options)
  const { getSourceFile, fileExists, readFile } = host
  host.getSourceFile = (name, language, ...rest) => {
    const code = files.get(name)
    return code === undefined ? getSourceFile.call(host, name, language, ...rest) : ts.createSourceFile(name, code, language)
  }
  host.fileExists = (name) => files.has(name) || fileExists.call(host, name)
  host.readFile = (name) => files.get(name) ?? readFile.call(host, name)
  const program = ts.createProgram([...files.keys()], options, host)
  const errors = new Map<string, string[]>()
  for (const [path] of files) {
    const diagnostics = ts.getPreEmitDiagnostics(program, program.getSourceFile(path))
    errors.set(path.slice(path.lastIndexOf('/') + 1, -3), diagnostics.map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')))
  }
  return errors
}
