import { DockerfileParser, ModifiableInstruction, type Instruction } from 'dockerfile-ast'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** One stage of the Dockerfile: from FROM to the next FROM. */
export interface Stage {
  name: string | null
  image: string
  instructions: Instruction[]
}

export interface Image {
  stages: Stage[]
  /** The last stage: what runs. */
  runtime: Stage
  env: Record<string, string>
  workdir: string
  user: string | undefined
  cmd: string[] | undefined
  /** The HEALTHCHECK's exec-form command, or undefined if it has none or a shell form. */
  healthcheck: string[] | undefined
}

/** The project's Dockerfile, read the way the Docker builder reads it (the parts this project uses). */
export function readImage (path = join(ROOT, 'Dockerfile')): Image {
  const dockerfile = DockerfileParser.parse(readFileSync(path, 'utf8'))
  const stages: Stage[] = []
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getKeyword() === 'FROM') {
      const [image = '', as, name] = instruction.getArguments().map((argument) => argument.getValue())
      stages.push({ image, name: as?.toUpperCase() === 'AS' ? name ?? null : null, instructions: [] })
    } else {
      stages.at(-1)?.instructions.push(instruction)
    }
  }
  const runtime = stages.at(-1)
  if (!runtime) throw new Error('the Dockerfile has no FROM')
  const last = (keyword: string) => runtime.instructions.filter((instruction) => instruction.getKeyword() === keyword).at(-1)

  const env: Record<string, string> = {}
  for (const instruction of runtime.instructions) {
    if (instruction.getKeyword() !== 'ENV') continue
    for (const argument of instruction.getArguments()) {
      const [name = '', ...value] = argument.getValue().split('=')
      env[name] = value.join('=')
    }
  }
  return {
    stages,
    runtime,
    env,
    workdir: last('WORKDIR')?.getArguments()[0]?.getValue() ?? '/',
    user: last('USER')?.getArguments()[0]?.getValue(),
    cmd: execForm(last('CMD')?.getArgumentsContent()),
    healthcheck: execForm(last('HEALTHCHECK')?.getArgumentsContent()?.replace(/^[^[]*?\bCMD\s+/s, ''))
  }
}

/** A JSON array of strings (the exec form), or undefined for the shell form. */
function execForm (text: string | null | undefined): string[] | undefined {
  if (!text?.trim().startsWith('[')) return undefined
  try {
    const parsed: unknown = JSON.parse(text.replace(/\\\r?\n/g, ''))
    return Array.isArray(parsed) && parsed.every((part) => typeof part === 'string') ? parsed : undefined
  } catch {
    return undefined
  }
}

/** An instruction's words, flags apart: COPY --from=build /app/dist ./dist → { flags: { from: 'build' }, words: [...] }. */
export function partsOf (instruction: Instruction): { flags: Record<string, string | null>, words: string[] } {
  const given = instruction instanceof ModifiableInstruction ? instruction.getFlags() : []
  const flags = Object.fromEntries(given.map((flag) => [flag.getName(), flag.getValue()]))
  return { flags, words: instruction.getArguments().map((argument) => argument.getValue()) }
}
