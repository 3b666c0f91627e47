"""Which values a port's program may take as parameters, judged by printing conversions with
stand-in values after the last IR steps: Triton constexprs (constexprs.py, handed to the front
end by porter/reader.py) and CUDA template values (templates.py, run by porter/pipeline.py
after the rules). Above emit/ and transforms/: it prints, the printer never judges."""
