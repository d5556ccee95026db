"""The front end: grammar files (:mod:`.source`) -> AST (:mod:`.parse`, :mod:`.ast`) -> resolved
rule table and IR (:mod:`.resolve`, :mod:`.lower`, :mod:`.ir`).

Nothing is imported here, so that importing the IR or the AST does not load the parser (lark).
"""
