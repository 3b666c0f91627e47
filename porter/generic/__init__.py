"""Which values a port's program may take as parameters, judged by comparing conversions with
stand-in values as IRs after the last IR steps (program_form.py): Triton constexprs
(constexprs.py, handed to the front end by porter/reader.py) and CUDA template values
(templates.py, run by porter/pipeline.py after the rules). Above transforms/; emit/ is never
asked: what the port prints by name is marked on the IR (transforms/spelling.py)."""
