"""The egglog bridge behind the `cublaslt-fuse` pass (docs/design.md, "Passes, in order" 3).

One block at a time, in the order the data flows:

- `encoder`: the block's calls and the hl ops around them as egglog facts over the term
  language (`terms` generates its datatypes from the descriptor table in
  `lumir/matmul_descriptor.py`, `sorts` the enum sorts from `lumir/cublaslt_enums.py`;
  `rules/base.egg` adds the functions and tables the guards read);
- `rulesets` and `rules/*.egg`: the rule families and the explicit schedule;
- `saturate`: egglog runs the schedule within node and iteration limits;
- `egraph_view`: the saturated e-graph as Python classes and e-nodes with stable keys;
- `extractor`, with `cost_model` and `descriptors`: the cheapest selection whose every
  call passes the verifier;
- `decoder`: the selection written back as xDSL ops;
- `block_fusion` runs these phases for one block, `fuse_pass` is the pass.
"""
